-- Shared by every wrk script: at the end of a run, one line the bench parses,
-- marked so that it cannot be confused with wrk's own text. Latencies in µs.
-- errors.status counts responses with a status of 400 or more (wrk's
-- "Non-2xx or 3xx responses").
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}}\n',
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end
