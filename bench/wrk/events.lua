-- POST /api/sdk/events with batches of events, each with a unique id made of
-- the run's nonce, the wrk thread and a counter, so that no event of one run
-- (or of a retried round, which gets a new nonce) is a duplicate of another.
-- Arguments (after --): sdk key, paywall id, users, nonce, events per batch.
--
-- Times are those of an SDK flushing its queue: the batch's events happened
-- over the last moments, SPACING_MS apart, oldest first, the newest now. With
-- many connections the batches' time ranges overlap, as those of many
-- devices do. bench/lib/events.mjs (batchTime) gives the baseline the same.

local SPACING_MS = 300

-- os.time() counts whole seconds: milliseconds come from gettimeofday.
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_usec; } bench_timeval;
  int gettimeofday(bench_timeval *tv, void *tz);
]]
local timeval = ffi.new("bench_timeval")
local function now_ms()
  ffi.C.gettimeofday(timeval, nil)
  return tonumber(timeval.tv_sec) * 1000 + math.floor(tonumber(timeval.tv_usec) / 1000)
end

local threads = 0
function setup(thread)
  thread:set("thread_id", threads)
  threads = threads + 1
end

-- A funnel's proportions: mostly impressions, some closes, a few purchases.
local types = {
  "screen_impression", "screen_impression", "screen_impression", "screen_impression", "screen_impression",
  "screen_impression", "paywall_close", "paywall_close", "purchase_start", "purchase_complete",
}
local products = { purchase_start = "pro_annual", purchase_complete = "pro_annual" }

local headers, paywall, users, idPrefix, batch
local counter = 0

function init(args)
  headers = { ["Authorization"] = "Bearer " .. args[1], ["Content-Type"] = "application/json" }
  paywall = args[2]
  users = tonumber(args[3])
  idPrefix = args[4] .. "-" .. thread_id .. "-"
  batch = tonumber(args[5])
end

function request()
  counter = counter + 1
  local now = now_ms()
  local parts = {}
  for i = 1, batch do
    local n = (counter - 1) * batch + i
    local kind = types[n % #types + 1]
    local product = products[kind]
    parts[i] = '{"id":"' .. idPrefix .. n ..
      '","type":"' .. kind ..
      '","paywall_id":"' .. paywall ..
      '","ts":' .. (now - (batch - i) * SPACING_MS) ..
      ',"user_id":"user-' .. ((n * 7919 + thread_id * 104729) % users) .. '"' ..
      (product and (',"product_id":"' .. product .. '"') or "") ..
      ',"properties":{"screen":"onboarding","step":' .. (n % 7) .. ',"price":9.99}}'
  end
  return wrk.format("POST", "/api/sdk/events", headers, '{"events":[' .. table.concat(parts, ",") .. ']}')
end

dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
