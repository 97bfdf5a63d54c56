// The artifacts' JSON as the page reads it. Stream, device, process and
// correlation ids are 64-bit in Go; JSON.parse rounds an integer past 2^53
// to the nearest double (stream 9007199254740993 showed as …992, and keyed
// the same lane as …992). Such an id is kept exact as a BigInt, read from
// its source text (JSON.parse source text access, Chromium 114+): template
// strings print it exactly and === / Map keys compare it by value. Only ids
// (by key, or inside an array of them): other numbers stay doubles, since
// the renderers do arithmetic on them.

const ID_KEYS = new Set(['device', 'stream', 'pid', 'tid', 'correlation', 'correlation_id', 'queue_id', 'process_id',
  'thread_id', 'kernel_id', 'node_id', 'logical_node_id', 'src_agent_id', 'origin_tid']);
const ID_ARRAYS = new Set(['streams', 'pids', 'trace_device_ids', 'devices', 'queues']);
const INT = /^-?\d+$/;

// An array element past 2^53: its key is its index, so the array (revived
// after its elements) decides: an id array keeps the BigInt.
class Big { constructor(b) { this.b = b; } }

function exactIDs(key, value, ctx) {
  if (typeof value === 'number' && !Number.isSafeInteger(value) && typeof ctx?.source === 'string' && INT.test(ctx.source)) {
    if (ID_KEYS.has(key)) return BigInt(ctx.source);
    if (/^\d+$/.test(key)) return new Big(BigInt(ctx.source));
    return value;
  }
  if (Array.isArray(value) && value.some((v) => v instanceof Big)) {
    return value.map((v) => (v instanceof Big ? (ID_ARRAYS.has(key) ? v.b : Number(v.b)) : v));
  }
  return value;
}

/** JSON.parse, ids past 2^53 kept exact (BigInt). */
export function parseJSON(text) {
  return JSON.parse(text, exactIDs);
}
