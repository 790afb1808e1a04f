-- GET /api/sdk/config with the user, locale, platform and country varying per
-- request. Arguments (after --): sdk key, paywall id, users, mode, nonce, and
-- optionally a placement id: then GET /api/sdk/placement?placement=ID with the
-- same parameters (the placement scenario drives both with this one script).
--   mode "pool":     userId cycles over `users` ids (user-0 … user-N-1), each
--                    thread starting elsewhere in the cycle. The requests are
--                    built once in init, so that request() only hands out the
--                    next one: building each request in Lua made wrk, not the
--                    server, the bottleneck.
--   mode "distinct": every request a user never seen before (nonce, thread,
--                    counter), for the memory scenario; built per request,
--                    which is what costs wrk most, and throughput is not its point.

-- The paywall has en, de and fr: exact matches, a region fallback and a
-- language it does not have (served in the default locale).
local locales = { "en", "de-AT", "fr-FR", "es", "de", "en-GB", "pt-BR" }
local platforms = { "ios", "android", "web" }
-- US on ios is the paywall's audience; the others fall through to the split.
local countries = { "US", "DE", "FR", "GB", "US" }

local threads = 0
function setup(thread)
  thread:set("thread_id", threads)
  threads = threads + 1
end

local headers, prefix, users, nonce
local counter = 0

local function path(n, user)
  return prefix .. user ..
    "&locale=" .. locales[n % #locales + 1] ..
    "&platform=" .. platforms[n % #platforms + 1] ..
    "&country=" .. countries[n % #countries + 1]
end

local prepared = {}

function init(args)
  headers = { ["Authorization"] = "Bearer " .. args[1] }
  if args[6] then
    prefix = "/api/sdk/placement?placement=" .. args[6] .. "&userId="
  else
    prefix = "/api/sdk/config?paywallId=" .. args[2] .. "&userId="
  end
  users = tonumber(args[3])
  nonce = args[5]
  if args[4] == "distinct" then
    request = function()
      counter = counter + 1
      return wrk.format("GET", path(counter, nonce .. "-" .. thread_id .. "-" .. counter), headers)
    end
  else
    -- 7919 is prime to 100,000 (and to any user count not divisible by it): every id comes round.
    for n = 1, users do
      prepared[n] = wrk.format("GET", path(n, "user-" .. ((n * 7919 + thread_id * 104729) % users)), headers)
    end
    request = function()
      counter = counter % users + 1
      return prepared[counter]
    end
  end
end

dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
