-- A mixed read/write workload for wrk (scripts/load.sh): each connection sends one request
-- every DELAY_MS milliseconds (a fixed rate: connections x 1000/DELAY_MS per second),
-- cycling through reads of a campaign, a goal, an ad and the /v3 lists, ad updates (PUT,
-- PATCH), contact creates and deletes. The ids come from the environment (set up by load.sh).
local key = os.getenv("API_KEY")
local campaign = os.getenv("CAMPAIGN_ID")
local goal = os.getenv("GOAL_ID")
local ad = os.getenv("AD_ID")
local ad_body = os.getenv("AD_BODY")
local delay_ms = tonumber(os.getenv("DELAY_MS") or "20")
local n = 0
-- Contacts created and not yet deleted (the ids the POST answers carry): the next delete
-- slot removes one, so the data set stays the same size and memory can be compared.
local created = {}

local mix = {
  function() return wrk.format("GET", "/api/1.0/campaign/by_campaign_id;id=" .. campaign) end,
  function() return wrk.format("GET", "/api/1.0.cpvext/goal/by_goal_id;id=" .. goal) end,
  function() return wrk.format("GET", "/v1/ads/" .. ad) end,
  function() return wrk.format("GET", "/v3/campaigns?pageSize=20") end,
  function() return wrk.format("GET", "/api/1.0/campaign/by_campaign_id;id=" .. campaign) end,
  function() return wrk.format("GET", "/v3/ads/" .. ad) end,
  function() return wrk.format("PUT", "/v1/ads", {["Content-Type"] = "application/json", ["x-o-api-key"] = key}, ad_body) end,
  function() return wrk.format("PATCH", "/v1/ads", {["Content-Type"] = "application/json", ["x-o-api-key"] = key}, '{"id":"' .. ad .. '","name":"Load ad ' .. n .. '"}') end,
  function() return wrk.format("POST", "/api/1.0/contact", {["Content-Type"] = "application/xml", ["x-o-api-key"] = key}, "<contactBean><firstName>Load</firstName><lastName>C" .. n .. "</lastName></contactBean>") end,
  function() return wrk.format("GET", "/v3/goals?pageSize=20") end,
  function()
    local id = table.remove(created)
    if id == nil then return wrk.format("GET", "/v3/goals?pageSize=20") end
    return wrk.format("DELETE", "/api/1.0/contact/by_contact_id;id=" .. id, {["x-o-api-key"] = key})
  end,
}

-- The threads (their refused requests are gathered in `done`).
local threads = {}

function setup(thread)
  thread:set("id", math.random(1000000))
  table.insert(threads, thread)
end

-- This thread's answers other than 2xx and 3xx: status and the body's start, so a failed
-- run says what was refused (global: `done` reads it with thread:get).
refused = ""

function init(args)
  -- wrk.format uses a request's own header table instead of wrk.headers: writes carry the key too.
  wrk.headers["x-o-api-key"] = key
end

function delay()
  return delay_ms
end

function request()
  n = n + 1
  return mix[(n % #mix) + 1]()
end

function response(status, headers, body)
  if status >= 400 and #refused < 2000 then
    refused = refused .. status .. " " .. string.sub(body or "", 1, 160):gsub("%s+", " ") .. "; "
  end
  if status == 200 and #body == 36 and body:match("^%x+%-%x+%-%x+%-%x+%-%x+$") then
    table.insert(created, body)
  end
end

function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT requests=%d duration_s=%.1f rate_per_s=%.1f errors=%d non_2xx=%d p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6), errors, summary.errors.status,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
  local all = ""
  for _, t in ipairs(threads) do all = all .. (t:get("refused") or "") end
  if all ~= "" then io.write("REFUSED " .. all .. "\n") end
end
