import net from 'node:net';

/**
 * Sends raw bytes to host:port and resolves with everything the server sent
 * back before it closed the connection or went quiet for `idleMs`. For
 * requests fetch() refuses to send (bad methods, huge headers, broken bytes).
 */
export function rawRequest(port: number, data: string | Buffer, idleMs = 300): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.setTimeout(idleMs, () => socket.end());
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve(received) : reject(error)));
    socket.on('close', () => resolve(received));
    socket.write(data);
  });
}

/**
 * Writes a request head and body chunks without waiting for the server to
 * read them, and resolves with the response head as soon as it arrives: for
 * limits that must answer before the client has finished sending.
 */
export function responseHeadWhileSending(port: number, head: string, chunks: Iterable<string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk;
      if (received.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('error', reject);
    socket.write(head);
    for (const chunk of chunks) socket.write(chunk);
  });
}
