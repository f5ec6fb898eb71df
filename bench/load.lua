-- wrk script for `npm run bench` (bench/run.mjs). run.mjs writes a spec file (a Lua table:
-- kind, method, path, body, token, T, seed, phase, pool) and passes its path in SVC_BENCH_SPEC.
-- Placeholders <<name>> in path/body are filled per request:
--   S1: <<id>> random template id in 1..T
--   C1: <<seq>> unique code suffix, <<cb>> creator, <<g1..g3>> / <<u1..u3>> distinct group / user ids
--   U1: <<t>> next template of the pool, <<k>> its visit number, and per relation (g_, u_):
--       <<g_keep>> row kept as is, <<g_chg_id>> row whose value becomes <<g_val>>, <<g_add>> value
--       of the new row. The third stored row is left out, so svc deletes it.
local spec = dofile(os.getenv("SVC_BENCH_SPEC"))
local static_req
local n, pidx, visits = 0, 0, {}
local headers = { ["Authorization"] = "Bearer " .. spec.token }

function init(args)
  math.randomseed(spec.seed)
  if spec.body then headers["Content-Type"] = "application/json" end
  if spec.kind:sub(1, 1) == "L" then -- L1, L2, L2E, LD
    static_req = wrk.format(spec.method, spec.path, headers, spec.body)
  end
end

local function fill(s, v)
  return (s:gsub("<<([%w_]+)>>", function(k) return tostring(v[k]) end))
end

local function distinct3(lo, hi)
  local a = math.random(lo, hi)
  local b repeat b = math.random(lo, hi) until b ~= a
  local c repeat c = math.random(lo, hi) until c ~= a and c ~= b
  return a, b, c
end

function request()
  if static_req then return static_req end -- lists: one prebuilt request, no per-request Lua work
  n = n + 1
  local v
  if spec.kind == "S1" then
    v = { id = math.random(1, spec.T) }
  elseif spec.kind == "C1" then
    local g1, g2, g3 = distinct3(1, 50)
    local u1, u2, u3 = distinct3(1, 1000)
    v = { seq = spec.phase .. "-" .. n, cb = math.random(1, 1000), g1 = g1, g2 = g2, g3 = g3, u1 = u1, u2 = u2, u3 = u3 }
  else -- U1; pool entry {t, g_keep, g_chg_id, g_v2, g_alt, g_v3, g_add, u_keep, u_chg_id, u_v2, u_alt, u_v3, u_add}
    pidx = pidx % #spec.pool + 1
    local e = spec.pool[pidx]
    local k = (visits[pidx] or 0) + 1
    visits[pidx] = k
    local odd = k % 2 == 1 -- values alternate between visits, so every request changes rows
    v = { t = e[1], k = k,
          g_keep = e[2], g_chg_id = e[3], g_val = odd and e[5] or e[4], g_add = odd and e[7] or e[6],
          u_keep = e[8], u_chg_id = e[9], u_val = odd and e[11] or e[10], u_add = odd and e[13] or e[12] }
  end
  return wrk.format(spec.method, fill(spec.path, v), headers, spec.body and fill(spec.body, v) or nil)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"err_socket":%d,"err_status":%d,' ..
    '"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99), latency.max))
end
