-- ---- shared body: the same in every coffer.dev health.lua (see scripts/generate/argocd.ts) ----

local function findCondition(conditions, conditionType)
  if type(conditions) ~= "table" then
    return nil
  end
  for _, c in ipairs(conditions) do
    if type(c) == "table" and c.type == conditionType then
      return c
    end
  end
  return nil
end

local function describe(c)
  local text = c.type .. " " .. (c.reason or "NoReason")
  if c.message ~= nil and c.message ~= "" then
    text = text .. ": " .. c.message
  end
  return text
end

local function isFalse(c)
  return c ~= nil and c.status == "False"
end

local function classOf(c)
  if not isFalse(c) then
    return nil
  end
  return classes[c.reason] or "unknown"
end

local function assess(o)
  local meta = o.metadata or {}
  local annotations = meta.annotations or {}
  if annotations["coffer.dev/paused"] == "true" then
    return "Suspended", "Reconciliation is paused (annotation coffer.dev/paused)"
  end
  local status = o.status or {}
  local ready = findCondition(status.conditions, "Ready")
  local synced = findCondition(status.conditions, "Synced")
  if classOf(synced) == "suspended" then
    return "Suspended", describe(synced)
  end
  if ready == nil and synced == nil then
    return "Progressing", "Waiting for the operator to reconcile this " .. kind
  end
  local observed = status.observedGeneration
  if meta.generation ~= nil and observed ~= nil and observed < meta.generation then
    return "Progressing", "Waiting for the operator to observe generation " .. tostring(meta.generation)
  end
  -- A terminal reason needs a person, also while the resource is being deleted.
  if classOf(synced) == "terminal" then
    return "Degraded", describe(synced)
  end
  if classOf(ready) == "terminal" then
    return "Degraded", describe(ready)
  end
  -- A Synced reason this check does not know: the operator cannot apply the spec.
  if classOf(synced) == "unknown" then
    return "Degraded", describe(synced)
  end
  -- The last reconcile did not finish (waiting, retrying): the spec is not applied yet.
  if isFalse(synced) then
    return "Progressing", describe(synced)
  end
  if ready ~= nil and ready.status == "True" and meta.deletionTimestamp == nil then
    return "Healthy", describe(ready)
  end
  if ready ~= nil then
    return "Progressing", describe(ready)
  end
  return "Progressing", "Waiting for the Ready condition"
end

local hs = {}
hs.status, hs.message = assess(obj)
return hs
