/**
 * Which addresses a webhook may not reach (docs/guide/webhooks.md, "Safety"):
 * a URL chosen by whoever manages a project must not turn the server into
 * a client of its own network (server-side request forgery). The host is
 * resolved and every address it resolves to is checked: when the endpoint
 * is written, and again before each attempt, which then connects to the
 * address it checked (a name that resolves elsewhere by then, DNS
 * rebinding, is checked anew). `--webhooks-allow-private` lifts it.
 */
import dns from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Ranges refused, with what each is (IANA's special-purpose registries); IPv4-mapped IPv6 addresses are checked as their IPv4 address. */
const RANGES: [network: string, prefix: number, kind: string][] = [
  ['0.0.0.0', 8, 'an unspecified ("this network")'],
  ['10.0.0.0', 8, 'a private'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'a loopback'],
  ['169.254.169.254', 32, 'a cloud metadata'],
  ['169.254.0.0', 16, 'a link-local'],
  ['172.16.0.0', 12, 'a private'],
  ['192.0.0.0', 24, 'an IETF protocol'],
  ['192.168.0.0', 16, 'a private'],
  ['198.18.0.0', 15, 'a benchmarking'],
  ['224.0.0.0', 4, 'a multicast'],
  ['240.0.0.0', 4, 'a reserved'],
  ['::', 128, 'an unspecified'],
  ['::1', 128, 'a loopback'],
  ['fd00:ec2::254', 128, 'a cloud metadata'],
  ['fc00::', 7, 'a private (unique local)'],
  ['fe80::', 10, 'a link-local'],
  ['ff00::', 8, 'a multicast'],
];

/** Made at the first check: isIP compiles node:net's IPv6 expression, which a process that sends no webhook (a CLI run) need not pay. */
let lists: { list: BlockList; kind: string }[] | undefined;

function blockLists(): { list: BlockList; kind: string }[] {
  lists ??= RANGES.map(([network, prefix, kind]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
    return { list, kind };
  });
  return lists;
}

/** The 8 groups of an IPv6 address, as numbers. */
function groups(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const part = (text: string) => (text === '' ? [] : text.split(':').map((group) => Number.parseInt(group, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** An IPv4 address that an IPv6 one carries by translation (NAT64's 64:ff9b::/96, 6to4's 2002::/16), which reaches it as surely. */
function embeddedIpv4(address: string): string | undefined {
  if (address.includes('.')) return undefined;
  const g = groups(address.toLowerCase());
  const ipv4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return ipv4(g[6]!, g[7]!);
  if (g[0] === 0x2002) return ipv4(g[1]!, g[2]!);
  return undefined;
}

/** What kind of refused address this is ("a loopback"), or undefined when a webhook may reach it. */
export function refusedKind(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'an unreadable';
  const embedded = family === 6 ? embeddedIpv4(address) : undefined;
  if (embedded !== undefined) return refusedKind(embedded);
  const type = family === 6 ? 'ipv6' : 'ipv4';
  return blockLists().find(({ list }) => list.check(address, type))?.kind;
}

export interface Resolved {
  address: string;
  family: 4 | 6;
}

/** How long a name may take to resolve. */
const LOOKUP_TIMEOUT_MS = 5000;

/**
 * Every address `host` (a URL's hostname, an IPv6 one in brackets) resolves
 * to, checked: the addresses to connect to. Throws an Error whose message
 * says why when it does not resolve or, unless `allowPrivate`, when any
 * address is refused.
 */
export async function resolveChecked(host: string, allowPrivate: boolean): Promise<Resolved[]> {
  const name = host.startsWith('[') ? host.slice(1, -1) : host;
  let found: Resolved[];
  if (isIP(name) !== 0) found = [{ address: name, family: isIP(name) as 4 | 6 }];
  else {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${name} did not resolve within ${LOOKUP_TIMEOUT_MS / 1000} s`)), LOOKUP_TIMEOUT_MS);
    });
    try {
      found = (await Promise.race([dns.lookup(name, { all: true, verbatim: true }), timeout])) as Resolved[];
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(code === undefined ? (error as Error).message : `${name} does not resolve (${code})`);
    } finally {
      clearTimeout(timer);
    }
  }
  if (!allowPrivate) {
    for (const { address } of found) {
      const kind = refusedKind(address);
      if (kind !== undefined)
        throw new Error(`${name} is ${kind} address${address === name ? '' : ` (${address})`}: not allowed without --webhooks-allow-private`);
    }
  }
  if (found.length === 0) throw new Error(`${name} resolves to no address`);
  return found;
}
