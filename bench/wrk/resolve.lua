-- GET /api/sdk/config with the user, locale, platform and country varying per
-- request. Arguments (after --): sdk key, paywall id, users, mode, nonce.
--   mode "pool":     userId cycles over `users` ids (user-0 … user-N-1), each
--                    thread starting elsewhere in the cycle;
--   mode "distinct": every request a user never seen before (nonce, thread,
--                    counter), for the memory scenario.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")

local threads = 0
function setup(thread)
  thread:set("thread_id", threads)
  threads = threads + 1
end

-- The paywall has en, de and fr: exact matches, a region fallback and a
-- language it does not have (served in the default locale).
local locales = { "en", "de-AT", "fr-FR", "es", "de", "en-GB", "pt-BR" }
local platforms = { "ios", "android", "web" }
-- US on ios is the paywall's audience; the others fall through to the split.
local countries = { "US", "DE", "FR", "GB", "US" }

local headers, prefix, users, distinct, nonce
local counter = 0

function init(args)
  headers = { ["Authorization"] = "Bearer " .. args[1] }
  prefix = "/api/sdk/config?paywallId=" .. args[2] .. "&userId="
  users = tonumber(args[3])
  distinct = args[4] == "distinct"
  nonce = args[5]
end

function request()
  counter = counter + 1
  local user
  if distinct then
    user = nonce .. "-" .. thread_id .. "-" .. counter
  else
    -- 7919 is prime to 100,000 (and to any user count not divisible by it): every id comes round.
    user = "user-" .. ((counter * 7919 + thread_id * 104729) % users)
  end
  local path = prefix .. user ..
    "&locale=" .. locales[counter % #locales + 1] ..
    "&platform=" .. platforms[counter % #platforms + 1] ..
    "&country=" .. countries[counter % #countries + 1]
  return wrk.format("GET", path, headers)
end
