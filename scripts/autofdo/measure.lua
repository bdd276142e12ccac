-- SPDX-License-Identifier: GPL-2.0
-- make autofdo: the held-out Lua workload, measured after training on
-- train.lua: other code paths of the same interpreter (an expression
-- parser, floating point, a graph search, serialisation, coroutines).
local scale = tonumber(arg and arg[1]) or 1

local state = 987654321
local function rnd()
	state = (state * 69069 + 1) % 4294967296
	return state / 4294967296
end

local check = 0
local function note(v)
	check = (check * 131 + math.floor(v)) % 2147483647
end

-- a recursive descent parser and evaluator for integer expressions
local function gen(depth)
	if depth == 0 or rnd() < 0.3 then return tostring(math.floor(rnd() * 90) + 1) end
	local ops = { "+", "-", "*" }
	local op = ops[math.floor(rnd() * 3) + 1]
	return "(" .. gen(depth - 1) .. " " .. op .. " " .. gen(depth - 1) .. ")"
end
local function parse(src)
	local toks, i = {}, 1
	for num, sym in src:gmatch("(%d*)%s*([%(%)%+%-%*]?)") do
		if num ~= "" then toks[#toks + 1] = tonumber(num) end
		if sym ~= "" then toks[#toks + 1] = sym end
	end
	local expr
	local function atom()
		local t = toks[i]; i = i + 1
		if t == "(" then
			local v = expr(); i = i + 1
			return v
		end
		return t
	end
	local function term()
		local v = atom()
		while toks[i] == "*" do i = i + 1; v = (v * atom()) % 1000003 end
		return v
	end
	function expr()
		local v = term()
		while toks[i] == "+" or toks[i] == "-" do
			local op = toks[i]; i = i + 1
			local r = term()
			if op == "+" then v = v + r else v = v - r end
		end
		return v
	end
	return expr()
end

-- dense floating-point matrices
local function matmul(n)
	local a, b, c = {}, {}, {}
	for i = 1, n do
		a[i], b[i], c[i] = {}, {}, {}
		for j = 1, n do a[i][j] = rnd(); b[i][j] = rnd() - 0.5 end
	end
	for i = 1, n do
		local ai, ci = a[i], c[i]
		for j = 1, n do
			local s = 0.0
			for k = 1, n do s = s + ai[k] * b[k][j] end
			ci[j] = s
		end
	end
	local tr = 0
	for i = 1, n do tr = tr + c[i][i] end
	note(tr * 1000)
end

-- breadth-first search on a grid with walls
local function bfs(w, h)
	local wall = {}
	for k = 0, w * h - 1 do wall[k] = rnd() < 0.25 end
	wall[0] = false
	local dist = { [0] = 0 }
	local q, head = { 0 }, 1
	while head <= #q do
		local k = q[head]; head = head + 1
		local x, y = k % w, k // w
		local d = dist[k] + 1
		for _, nb in ipairs({ { x + 1, y }, { x - 1, y }, { x, y + 1 }, { x, y - 1 } }) do
			local nx, ny = nb[1], nb[2]
			if nx >= 0 and nx < w and ny >= 0 and ny < h then
				local nk = ny * w + nx
				if not wall[nk] and not dist[nk] then
					dist[nk] = d
					q[#q + 1] = nk
				end
			end
		end
	end
	local far = 0
	for _, d in pairs(dist) do if d > far then far = d end end
	note(#q); note(far)
end

-- serialise nested tables with sorted keys
local function serialise(v, out)
	local t = type(v)
	if t == "table" then
		local keys = {}
		for k in pairs(v) do keys[#keys + 1] = tostring(k) end
		table.sort(keys)
		out[#out + 1] = "{"
		for _, k in ipairs(keys) do
			out[#out + 1] = string.format("%q:", k)
			serialise(v[k] ~= nil and v[k] or v[tonumber(k)], out)
			out[#out + 1] = ","
		end
		out[#out + 1] = "}"
	elseif t == "number" then
		out[#out + 1] = string.format("%.6g", v)
	else
		out[#out + 1] = string.format("%q", tostring(v))
	end
end
local function tree(depth)
	local node = { name = "n" .. math.floor(rnd() * 1000), weight = rnd() }
	if depth > 0 then
		for i = 1, 3 do node[i] = tree(depth - 1) end
	end
	return node
end

-- a coroutine pipeline: producer, filter, consumer
local function pipeline(n)
	local prod = coroutine.wrap(function()
		for i = 1, n do coroutine.yield(math.floor(rnd() * 10000)) end
		coroutine.yield(nil)
	end)
	local filt = coroutine.wrap(function()
		while true do
			local v = prod()
			if v == nil then coroutine.yield(nil) end
			if v % 3 ~= 0 then coroutine.yield(v) end
		end
	end)
	local s = 0
	while true do
		local v = filt()
		if v == nil then break end
		s = (s + v) % 1000003
	end
	note(s)
end

for round = 1, 2 * scale do
	for k = 1, 150 do note(parse(gen(7))) end
	matmul(40)
	bfs(120, 80)
	local out = {}
	serialise(tree(5), out)
	note(#table.concat(out))
	pipeline(20000)
end
print(string.format("measure %d", check))
