-- Shared by every wrk script, loaded at its end (it wraps the script's setup
-- and init): at the end of a run, one line the bench parses, marked so that
-- it cannot be confused with wrk's own text. Latencies in µs.
-- errors.status counts responses with a status of 400 or more (wrk's
-- "Non-2xx or 3xx responses"); the bench counts every other non-2xx on the
-- server side, since a Lua response() callback would cost wrk more than the
-- servers it measures.
--
-- cpu_ticks is the CPU time wrk itself used (all its threads, user + system,
-- in clock ticks of /proc/self/stat) from the end of the last thread's init
-- to done(): what the load generator spent on the measured requests, so the
-- bench can show that it was not the bottleneck.

local function cpu_ticks()
  local file = io.open("/proc/self/stat", "r")
  if not file then return -1 end
  local stat = file:read("*a")
  file:close()
  -- The fields after the parenthesised command name; utime and stime are the 12th and 13th of them.
  local fields = {}
  for field in stat:match("%) (.*)$"):gmatch("%S+") do fields[#fields + 1] = field end
  return tonumber(fields[12]) + tonumber(fields[13])
end

-- setup runs in wrk's main Lua state, once per thread; done runs there too and
-- reads each thread's state through the thread objects kept here.
local measured_threads = {}
local script_setup, script_init = setup, init

function setup(thread)
  measured_threads[#measured_threads + 1] = thread
  if script_setup then script_setup(thread) end
end

-- init runs in each thread's own state, before that thread sends anything.
function init(args)
  if script_init then script_init(args) end
  bench_ready_ticks = cpu_ticks()
end

function done(summary, latency, requests)
  local start = -1
  for _, thread in ipairs(measured_threads) do start = math.max(start, thread:get("bench_ready_ticks") or -1) end
  local now = cpu_ticks()
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,' ..
    '"cpu_ticks":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}}\n',
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    (start < 0 or now < 0) and -1 or now - start,
    e.connect, e.read, e.write, e.status, e.timeout))
end
