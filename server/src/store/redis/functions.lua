#!lua name=tengen

-- The Redis Functions of Tengen's Redis store (server/src/store/redis/), loaded with FUNCTION LOAD
-- REPLACE each time the server opens the store. Each function touches the keys of one hash tag
-- only, so it is atomic on one Redis and stays legal on Redis Cluster. Key names built here must
-- match server/src/store/redis/keys.rs.

-- The one account allowed below 0 (Account::Mint's key).
local MINT = 'mint'

-- Amounts are decimal digits, at most 15 of them: Lua numbers are doubles, exact only below 2^53
-- (about 9 * 10^15), and the balance checks below are done in Lua before any write.
local AMOUNT_DIGITS_MAX = 15

-- Arguments per transfer and per settlement record in tengen_apply_batch, after the three counts.
local TRANSFER_ARGS = 8
local SETTLEMENT_ARGS = 5

-- Append one event to a game's log unless that seq is already there. When several nodes share the
-- store, the appending node names the lease it holds on the game (its fence): a node that lost the
-- game to another (a pause, a partition) is refused here, so two owners never both write a log.
-- KEYS: the game's hash, its events hash, its owner. ARGV: seq, event JSON, fence ('' for none).
local function append_event(keys, args)
  if redis.call('EXISTS', keys[1]) == 0 then
    return 'no_such_game'
  end
  if args[3] ~= '' and redis.call('GET', keys[3]) ~= args[3] then
    return 'fenced'
  end
  if redis.call('HSETNX', keys[2], args[1], args[2]) == 0 then
    return 'duplicate'
  end
  return 'ok'
end

-- Set fields of a hash only if it exists (finishing a game, marking a computer player), so a
-- missing record is reported instead of half-created. KEYS: the hash. ARGV: field, value, ...
-- Returns 1 when set, 0 when the hash does not exist.
local function set_if_exists(keys, args)
  if redis.call('EXISTS', keys[1]) == 0 then
    return 0
  end
  redis.call('HSET', keys[1], unpack(args))
  return 1
end

local function is_amount(text)
  return #text <= AMOUNT_DIGITS_MAX and string.match(text, '^[1-9][0-9]*$') ~= nil
end

-- Whether a stored transfer and a new one are the same movement (the time may differ: it is when
-- the transfer was first applied).
local function same_movement(stored, new)
  return stored.from == new.from and stored.to == new.to and stored.amount == new.amount
    and stored.kind == new.kind and stored.game == new.game and stored.side == new.side
end

-- An account's balance as this batch has left it so far.
local function balance_of(balances, balances_key, account)
  local known = balances[account]
  if known then
    return known
  end
  local stored = redis.call('HGET', balances_key, account)
  if not stored then
    return 0
  end
  return tonumber(stored)
end

-- Read and check a batch's transfers: which are new, and is any refused. Nothing is written.
local function plan_transfers(ledger, args, transfers_count)
  local transfers_key = ledger .. ':transfers'
  local balances_key = ledger .. ':balances'
  local balances = {}
  local taken = {}
  local new = {}
  for i = 0, transfers_count - 1 do
    local at = 4 + i * TRANSFER_ARGS
    local t = {
      id = args[at], from = args[at + 1], to = args[at + 2], amount = args[at + 3],
      kind = args[at + 4], game = args[at + 5], side = args[at + 6], at_ms = args[at + 7],
    }
    if not is_amount(t.amount) then
      return nil, {'bad', 'transfer ' .. t.id .. ' moves ' .. t.amount .. ' points'}
    end
    if t.from == t.to then
      return nil, {'bad', 'transfer ' .. t.id .. ' goes from ' .. t.from .. ' to itself'}
    end
    local earlier = taken[t.id]
    if not earlier then
      local stored = redis.call('HGET', transfers_key, t.id)
      if stored then
        earlier = cjson.decode(stored)
      end
    end
    if earlier then
      if not same_movement(earlier, t) then
        return nil, {'conflict', t.id}
      end
    else
      local amount = tonumber(t.amount)
      local from_balance = balance_of(balances, balances_key, t.from)
      local to_balance = balance_of(balances, balances_key, t.to)
      if not from_balance or not to_balance then
        return nil, {'backend', 'a balance in ' .. balances_key .. ' is not a number'}
      end
      if from_balance - amount < 0 and t.from ~= MINT then
        return nil, {'insufficient', t.from}
      end
      balances[t.from] = from_balance - amount
      balances[t.to] = to_balance + amount
      taken[t.id] = t
      table.insert(new, t)
    end
  end
  return new, nil
end

-- Which of a batch's settlement records are new (a record already present is skipped).
local function plan_settlements(ledger, args, first, settlements_count)
  local taken = {}
  local new = {}
  for i = 0, settlements_count - 1 do
    local at = first + i * SETTLEMENT_ARGS
    local s = {game = args[at], part = args[at + 1], tax_bp = args[at + 2], summary = args[at + 3],
               at_ms = args[at + 4]}
    local key = ledger .. ':settlements:' .. s.game
    if not taken[key .. ' ' .. s.part] and redis.call('HEXISTS', key, s.part) == 0 then
      taken[key .. ' ' .. s.part] = true
      table.insert(new, s)
    end
  end
  return new
end

local function write_transfer(ledger, t)
  redis.call('HSET', ledger .. ':transfers', t.id, cjson.encode({
    from = t.from, to = t.to, amount = t.amount, kind = t.kind, game = t.game, side = t.side,
    at_ms = t.at_ms,
  }))
  redis.call('HINCRBY', ledger .. ':balances', t.from, '-' .. t.amount)
  redis.call('HINCRBY', ledger .. ':balances', t.to, t.amount)
  if t.game ~= '' then
    redis.call('RPUSH', ledger .. ':game:' .. t.game, t.id)
  end
  redis.call('LPUSH', ledger .. ':account:' .. t.from, t.id)
  redis.call('LPUSH', ledger .. ':account:' .. t.to, t.id)
  if t.kind == 'grant' then
    redis.call('INCRBY', ledger .. ':granted', t.amount)
  end
  -- The append-only audit trail: every applied transfer, in the order applied, never trimmed.
  redis.call('XADD', ledger .. ':audit', '*', 'id', t.id, 'from', t.from, 'to', t.to,
    'amount', t.amount, 'kind', t.kind, 'game', t.game, 'side', t.side, 'at_ms', t.at_ms)
end

local function write_settlement(ledger, s)
  redis.call('HSET', ledger .. ':settlements:' .. s.game, s.part, cjson.encode({
    tax_bp = s.tax_bp, summary = s.summary, at_ms = s.at_ms,
  }))
  redis.call('ZADD', ledger .. ':settled', s.game, s.game)
end

-- Apply one batch of transfers and settlement records all-or-nothing: every check is made before
-- the first write, so a refused batch changes nothing.
-- KEYS: the ledger's hash tag prefix, '{ledger}'. ARGV: the most transfers allowed, the number of
-- transfers, the number of records, then each transfer (id, from, to, amount, kind, game or '',
-- side or '', at_ms) and each record (game, part, tax_bp, summary JSON, at_ms).
-- Returns {'ok', 'applied' | 'already_applied'} or a refusal {'bad' | 'conflict' |
-- 'insufficient' | 'backend', detail}.
local function apply_batch(keys, args)
  local ledger = keys[1]
  local transfers_max = tonumber(args[1])
  local transfers_count = tonumber(args[2])
  local settlements_count = tonumber(args[3])
  if not transfers_max or not transfers_count or not settlements_count
      or #args ~= 3 + transfers_count * TRANSFER_ARGS + settlements_count * SETTLEMENT_ARGS then
    return {'bad', 'malformed tengen_apply_batch call'}
  end
  if transfers_count > transfers_max then
    return {'bad', transfers_count .. ' transfers; at most ' .. transfers_max}
  end
  local transfers, refusal = plan_transfers(ledger, args, transfers_count)
  if refusal then
    return refusal
  end
  local settlements = plan_settlements(ledger, args, 4 + transfers_count * TRANSFER_ARGS,
    settlements_count)
  if #transfers == 0 and #settlements == 0 then
    return {'ok', 'already_applied'}
  end
  for _, t in ipairs(transfers) do
    write_transfer(ledger, t)
  end
  for _, s in ipairs(settlements) do
    write_settlement(ledger, s)
  end
  return {'ok', 'applied'}
end

-- A throttle counter's count as of `now` (an expired one counts 0) and its last counted attempt.
local function throttle_state(key, now)
  local fields = redis.call('HMGET', key, 'count', 'last_ms', 'expires_at_ms')
  local count, last, expires = tonumber(fields[1]), tonumber(fields[2]), tonumber(fields[3])
  if count == nil or last == nil or expires == nil or expires <= now then
    return 0, 0
  end
  return count, last
end

-- How long after the last counted attempt the next may come (Backoff::delay_ms in store/mod.rs).
local function throttle_delay(count, free, base, max)
  if count < free then
    return 0
  end
  local doublings = math.min(count - free, 40)
  return math.min(base * 2 ^ doublings, max)
end

-- Count one attempt on every counter if each lets one through now, else none (Store::throttle_attempt).
-- KEYS: the counters. ARGV: now, then per key: free, base_ms, max_ms, forget_ms.
-- Returns 0 when counted, else the longest wait in ms.
local function throttle_attempt(keys, args)
  local now = tonumber(args[1])
  local counts, lasts = {}, {}
  local wait = 0
  for i, key in ipairs(keys) do
    local at = 1 + (i - 1) * 4
    local count, last = throttle_state(key, now)
    local delay = throttle_delay(count, tonumber(args[at + 1]), tonumber(args[at + 2]),
      tonumber(args[at + 3]))
    if delay > 0 then
      wait = math.max(wait, last + delay - now)
    end
    counts[i] = count
    lasts[i] = math.max(last, now)
  end
  if wait > 0 then
    return wait
  end
  for i, key in ipairs(keys) do
    local forget = tonumber(args[1 + (i - 1) * 4 + 4])
    -- The latest of the stamps: a caller whose clock is behind never shortens a wait.
    redis.call('HSET', key, 'count', counts[i] + 1, 'last_ms', lasts[i], 'expires_at_ms',
      lasts[i] + forget)
    redis.call('PEXPIRE', key, forget)
  end
  return 0
end

-- Take one attempt back from a counter, or forget it (Store::throttle_release).
-- KEYS: the counters. ARGV: per key, 'release' or 'clear'.
local function throttle_release(keys, args)
  for i, key in ipairs(keys) do
    if args[i] == 'clear' then
      redis.call('DEL', key)
    elseif tonumber(redis.call('HGET', key, 'count') or '0') > 0 then
      redis.call('HINCRBY', key, 'count', -1)
    end
  end
  return 0
end

-- Claim a username for a new account: refused when an account has its key (the same name in any
-- case or width) or its confusable skeleton (a lookalike). KEYS: the name index, the skeleton index
-- (both under {users}). ARGV: key, skeleton, user id. Returns {'claimed', id}, or {'taken', holder}
-- or {'confusable', holder} with the id of the account that holds it.
local function claim_username(keys, args)
  local holder = redis.call('HGET', keys[1], args[1])
  if holder then
    return {'taken', holder}
  end
  holder = redis.call('HGET', keys[2], args[2])
  if holder then
    return {'confusable', holder}
  end
  redis.call('HSET', keys[1], args[1], args[3])
  redis.call('HSET', keys[2], args[2], args[3])
  return {'claimed', args[3]}
end

-- Schema version 1 for one account made before it: index it by its new key (dropping the old one
-- when they differ), and by its skeleton unless an older account holds that. Idempotent, so nodes
-- starting together may both run it. KEYS: the name index, the skeleton index. ARGV: old key, new
-- key, skeleton, user id. Returns {keyed, skeleton_held}: whether the new key is this account's,
-- and whether the skeleton is.
local function rekey_username(keys, args)
  local old_key, new_key, skeleton, id = args[1], args[2], args[3], args[4]
  redis.call('HSETNX', keys[1], new_key, id)
  local keyed = redis.call('HGET', keys[1], new_key) == id
  if keyed and old_key ~= new_key and redis.call('HGET', keys[1], old_key) == id then
    redis.call('HDEL', keys[1], old_key)
  end
  redis.call('HSETNX', keys[2], skeleton, id)
  local held = redis.call('HGET', keys[2], skeleton) == id
  return {keyed and 1 or 0, held and 1 or 0}
end

-- A player's relation to another, unless their list of that kind is full; a block drops the follow
-- of the same pair. KEYS: the holder's list of this kind, the other's holders of this kind, the
-- holder's follows, the other's followers. ARGV: the other's id, the holder's id, the list's bound,
-- when (the score), '1' for a block. Returns 'done' (added, or held already) or 'full'.
local function add_relation(keys, args)
  if redis.call('ZSCORE', keys[1], args[1]) then
    return 'done'
  end
  if redis.call('ZCARD', keys[1]) >= tonumber(args[3]) then
    return 'full'
  end
  redis.call('ZADD', keys[1], args[4], args[1])
  redis.call('SADD', keys[2], args[2])
  if args[5] == '1' then
    redis.call('ZREM', keys[3], args[1])
    redis.call('SREM', keys[4], args[2])
  end
  return 'done'
end

redis.register_function('tengen_add_relation', add_relation)
redis.register_function('tengen_claim_username', claim_username)
redis.register_function('tengen_rekey_username', rekey_username)
redis.register_function('tengen_append_event', append_event)
redis.register_function('tengen_throttle_attempt', throttle_attempt)
redis.register_function('tengen_throttle_release', throttle_release)
redis.register_function('tengen_set_if_exists', set_if_exists)
redis.register_function('tengen_apply_batch', apply_batch)
