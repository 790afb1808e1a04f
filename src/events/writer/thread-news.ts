/**
 * What the writer thread reports that the server only logs: its checkpoints,
 * the dedup key filter, retention failures, events the derived state left
 * out. EventWriter (writer.ts) handles the rest of what the thread says.
 */
import type { DerivedState } from '../../analytics/state.ts';
import type { Logger } from '../../log.ts';
import type { FromWriter } from './protocol.ts';

/** Logs the message when it is news only; false when EventWriter must handle it. */
export function logThreadNews(log: Logger, message: FromWriter): boolean {
  switch (message.kind) {
    case 'unrepresentable':
      log.warn('stored events left out of the experiment results: too many variants or currencies in a segment', { events: message.events });
      return true;
    case 'checkpoint_written':
      log.info('event checkpoint written', { seq: message.seq, bytes: message.bytes, ms: message.ms });
      return true;
    case 'checkpoint_failed':
      log.error('event checkpoint failed; it is retried', { error: message.error });
      return true;
    case 'filter_filled':
      log.info('dedup key filter filled', { fill_ms: message.ms, keys: message.keys });
      return true;
    case 'filter_failed':
      log.error('filling the dedup key filter failed; duplicates are checked in the database instead', { error: message.error });
      return true;
    case 'retention_failed':
      log.error('retention pass failed', { error: message.error });
      return true;
    default:
      return false;
  }
}

/**
 * Tells the server what the derived state counted that it hears of, after
 * each fold: the placement opens (frequency caps), and the stored events it
 * left out when more than `reported`, the number it last told; returns the
 * number told now.
 */
export function sendStateNews(state: DerivedState, reported: number, send: (message: FromWriter) => void): number {
  const opens = state.takeOpens();
  if (opens) send({ kind: 'placement_opens', ...opens });
  if (state.unrepresentable !== reported) send({ kind: 'unrepresentable', events: state.unrepresentable });
  return state.unrepresentable;
}
