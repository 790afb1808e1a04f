-- One fixed GET (wrk's own URL and -H headers) with the bench's report at the end.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
