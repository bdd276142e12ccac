-- SPDX-License-Identifier: GPL-2.0
-- make autofdo: the Lua training workload (tables, strings, closures).
-- Deterministic: a linear congruential generator, no clock, no I/O but
-- the final checksums. The held-out workload is measure.lua.
local scale = tonumber(arg and arg[1]) or 1

local seed = 12345
local function rand(n)
	seed = (seed * 1103515245 + 12345) % 2147483648
	return seed % n
end

local sum = 0
local function mix(v)
	sum = (sum * 31 + v) % 1000000007
end

-- tables: arrays filled, sorted with a closure, counted into a hash
local function tables(n)
	local a = {}
	for i = 1, n do a[i] = rand(100000) end
	table.sort(a, function(x, y) return x > y end)
	local counts = {}
	for i = 1, n do
		local k = a[i] % 97
		counts[k] = (counts[k] or 0) + 1
	end
	for k = 0, 96 do mix(counts[k] or 0) end
	for i = n, 1, -7 do table.remove(a, i) end
	for i = 1, #a, 5 do table.insert(a, i, i) end
	mix(#a)
	mix(a[1] + a[#a])
end

-- strings: words built, formatted, matched and replaced
local syll = { "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "qu" }
local function strings(n)
	local words = {}
	for i = 1, n do
		local w = {}
		for j = 1, 2 + rand(4) do w[j] = syll[rand(#syll) + 1] end
		words[i] = table.concat(w)
	end
	local text = table.concat(words, " ")
	local freq = {}
	for w in text:gmatch("%a+") do freq[w] = (freq[w] or 0) + 1 end
	local keys = {}
	for w in pairs(freq) do keys[#keys + 1] = w end
	table.sort(keys)
	for i = 1, #keys do
		local line = string.format("%-12s %5d %x", keys[i], freq[keys[i]], i)
		mix(#line + line:byte(1))
	end
	local up = text:gsub("(k%a)", string.upper)
	mix(#up)
	local _, vowels = text:gsub("[aeiou]", "")
	mix(vowels)
	local pos, hits = 1, 0
	while true do
		local s, e = text:find("ruto", pos, true)
		if not s then break end
		hits, pos = hits + 1, e + 1
	end
	mix(hits)
	mix(#text:rep(3, ","):reverse())
end

-- closures: counters, map/filter/fold and a memoised recursion
local function map(t, f)
	local r = {}
	for i = 1, #t do r[i] = f(t[i]) end
	return r
end
local function filter(t, p)
	local r = {}
	for i = 1, #t do if p(t[i]) then r[#r + 1] = t[i] end end
	return r
end
local function fold(t, f, acc)
	for i = 1, #t do acc = f(acc, t[i]) end
	return acc
end
local function counter(step)
	local c = 0
	return function() c = c + step; return c end
end
local function closures(n)
	local t = {}
	for i = 1, n do t[i] = rand(1000) end
	local sq = map(t, function(x) return x * x end)
	local odd = filter(sq, function(x) return x % 2 == 1 end)
	mix(fold(odd, function(a, b) return (a + b) % 1000003 end, 0))
	local cs = {}
	for i = 1, 16 do cs[i] = counter(i) end
	for i = 1, n do mix(cs[i % 16 + 1]()) end
	local memo = {}
	local function paths(r, c)
		if r == 0 or c == 0 then return 1 end
		local k = r * 1000 + c
		local v = memo[k]
		if not v then
			v = (paths(r - 1, c) + paths(r, c - 1)) % 1000000007
			memo[k] = v
		end
		return v
	end
	mix(paths(n // 40, n // 50))
end

-- objects: metatables and method calls
local Vec = {}
Vec.__index = Vec
function Vec.new(x, y) return setmetatable({ x = x, y = y }, Vec) end
function Vec.__add(a, b) return Vec.new(a.x + b.x, a.y + b.y) end
function Vec:dot(o) return self.x * o.x + self.y * o.y end
local function objects(n)
	local acc = Vec.new(0, 0)
	for i = 1, n do
		local v = Vec.new(rand(100) - 50, rand(100) - 50)
		acc = acc + v
		mix(v:dot(acc) % 65536)
	end
end

for round = 1, scale do
	tables(4000)
	strings(3000)
	closures(5000)
	objects(6000)
end
print(string.format("train %d", sum))
