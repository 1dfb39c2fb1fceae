-- Argo CD health check for coffer.dev/Identity (resource.customizations.health.coffer.dev_Identity).
-- Healthy: Ready=True for the current generation. Progressing: not yet reconciled, an old
-- generation, or waiting on a dependency. Degraded: the operator cannot apply the spec.
-- Suspended: annotation coffer.dev/paused="true". Written for Argo CD's Lua 5.1 VM.
local kind = "Identity"
-- Ready=False reasons that are terminal for this kind only.
local kindTerminalReasons = {}

-- ---- shared body: identical in every coffer.dev health.lua (a test checks it) ----
-- Synced=False reasons that mean "waiting for something that will come": Progressing.
local waiting = {
  ReferenceNotReady = true,
  ConnectionNotReady = true,
  RateLimited = true,
  Creating = true,
  Deleting = true,
}

-- Ready=False reasons that need a person: Degraded. (Every Synced=False reason that is not
-- waiting is Degraded too: the operator cannot apply the spec.)
local terminal = {
  InvalidSpec = true,
  Rejected = true,
  CreateIncomplete = true,
  Forbidden = true,
  Unauthorized = true,
  NotFound = true,
  AlreadyExists = true,
  DeletionProtected = true,
}
for _, reason in ipairs(kindTerminalReasons) do
  terminal[reason] = true
end

local function findCondition(conditions, conditionType)
  if type(conditions) ~= "table" then
    return nil
  end
  for _, c in ipairs(conditions) do
    if c.type == conditionType then
      return c
    end
  end
  return nil
end

local function describe(c, fallback)
  local text = c.reason or fallback
  if c.message ~= nil and c.message ~= "" then
    text = text .. ": " .. c.message
  end
  return text
end

local function assess(o)
  local meta = o.metadata or {}
  local annotations = meta.annotations or {}
  if annotations["coffer.dev/paused"] == "true" then
    return "Suspended", "Reconciliation is paused (annotation coffer.dev/paused)"
  end
  if meta.deletionTimestamp ~= nil then
    return "Progressing", "Deleting: waiting for the operator to clean up"
  end
  local status = o.status
  if status == nil or status.conditions == nil then
    return "Progressing", "Waiting for the operator to reconcile this " .. kind
  end
  local ready = findCondition(status.conditions, "Ready")
  local synced = findCondition(status.conditions, "Synced")
  local observed = status.observedGeneration
  if observed == nil and ready ~= nil then
    observed = ready.observedGeneration
  end
  if meta.generation ~= nil and (observed == nil or observed < meta.generation) then
    return "Progressing", "Waiting for the operator to observe generation " .. tostring(meta.generation)
  end
  if synced ~= nil and synced.status == "False" then
    if synced.reason == "Paused" then
      return "Suspended", describe(synced, "Paused")
    end
    if waiting[synced.reason] then
      return "Progressing", describe(synced, "Waiting")
    end
    return "Degraded", describe(synced, "SyncFailed")
  end
  if ready ~= nil and ready.status == "True" then
    return "Healthy", describe(ready, "Ready")
  end
  if ready ~= nil and ready.status == "False" and terminal[ready.reason] then
    return "Degraded", describe(ready, "NotReady")
  end
  if ready ~= nil then
    return "Progressing", describe(ready, "NotReady")
  end
  return "Progressing", "Waiting for the Ready condition"
end

local hs = {}
hs.status, hs.message = assess(obj)
return hs
