// The outbox's laws (docs/APP.md, "Every command waits in an outbox"): the
// order commands go in, how many one push carries, a push refused as a whole
// sent again in halves down to the one line the hub cannot take, and when to
// try again. Pure: the hub is a function passed in; nothing is done at import.

/** The outbox's records in the order they were made (`n`, given by the store as they were kept). */
export function ordered(records) {
  return [...records].sort((a, b) => a.n - b.n);
}

/** The most commands one push carries, and the bytes it stays under (the hub takes 1 MiB bodies). */
export const pushLimits = { commands: 1000, bytes: 900_000 };

/** As many of the waiting records, from the first, as one push may carry; always the first, however large. */
export function batch(records, limits = pushLimits) {
  const taken = [];
  let bytes = 64;
  for (const record of records) {
    bytes += JSON.stringify(record.command).length * 3 + 1;   // UTF-8 at most 3 bytes a UTF-16 unit
    if (taken.length === limits.commands || (taken.length > 0 && bytes > limits.bytes)) break;
    taken.push(record);
  }
  return taken;
}

/**
 * One push of `records` through `attempt` (their commands → `{results}` the hub's answers, `{refused: {code,
 * message}}` the push refused as a whole, or null when the hub cannot be reached): the results by command id.
 * A refused push is sent again in halves, so that only the line the hub cannot take is refused. Null when the
 * first push cannot be made; a map marked `partial` when a later half could not be sent (those wait).
 */
export async function pushInHalves(records, attempt) {
  const answer = await attempt(records.map((r) => r.command));
  if (!answer) return null;
  if (answer.results) return new Map(answer.results.map((r) => [r.command, r]));
  if (records.length === 1) {
    const id = records[0].command.id;
    return new Map([[id, { command: id, ok: false, error: answer.refused }]]);
  }
  const half = Math.ceil(records.length / 2);
  const first = await pushInHalves(records.slice(0, half), attempt);
  if (!first) return null;
  const second = await pushInHalves(records.slice(half), attempt);
  const both = new Map([...first, ...(second ?? [])]);
  if (first.partial || !second || second.partial) both.partial = true;
  return both;
}

/** The most pushes one sending makes: never round and round. */
export const sendRounds = 50;

/** Another push after this one while anything moved: a command sent again, answered or refused. */
export function sendAgain({ resent, done, refused }) {
  return resent || done > 0 || refused > 0;
}

/** The pause before asking an unreachable hub again: 1 s, doubled each time, at most 4 s. */
export const firstPause = 1000;
export function nextPause(pause) {
  return Math.min(pause * 2, 4000);
}
