-- POST /api/sdk/identify, each request a new link: an anonymous id made of
-- the run's nonce, the wrk thread and a counter, to a user of its own, so
-- that no request finds its link made already and none meets the limit of
-- links per user (what a crowd of first sign-ins sends).
-- Arguments (after --): sdk key, nonce.

local threads = 0
function setup(thread)
  thread:set("thread_id", threads)
  threads = threads + 1
end

local headers, prefix
local counter = 0

function init(args)
  headers = { ["Authorization"] = "Bearer " .. args[1], ["Content-Type"] = "application/json" }
  prefix = args[2] .. "-" .. thread_id .. "-"
end

function request()
  counter = counter + 1
  return wrk.format("POST", "/api/sdk/identify", headers,
    '{"anonymous_id":"device-' .. prefix .. counter .. '","user_id":"member-' .. prefix .. counter .. '"}')
end

dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
