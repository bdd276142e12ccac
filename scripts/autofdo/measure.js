// SPDX-License-Identifier: GPL-2.0
// make autofdo: the held-out script of duk. Other code than the training
// script's: floating point, a sieve, a tokenizer and a stack machine,
// memoized recursion, string splitting.
function nbody(steps) {
	var b = [[0, 0, 0, 0, 0, 0, 40], [4.8, -1.1, -0.1, 0.6, 2.8, -0.02, 0.04],
		 [8.3, 4.1, -0.4, -1.0, 1.8, 0.008, 0.01], [12.9, -15.1, -0.2, 1.0, 0.8, -0.01, 0.002]];
	var s, i, j, dx, dy, dz, d2, mag;
	for (s = 0; s < steps; s++) {
		for (i = 0; i < b.length; i++)
			for (j = i + 1; j < b.length; j++) {
				dx = b[i][0] - b[j][0];
				dy = b[i][1] - b[j][1];
				dz = b[i][2] - b[j][2];
				d2 = dx * dx + dy * dy + dz * dz;
				mag = 0.01 / (d2 * Math.sqrt(d2));
				b[i][3] -= dx * b[j][6] * mag; b[j][3] += dx * b[i][6] * mag;
				b[i][4] -= dy * b[j][6] * mag; b[j][4] += dy * b[i][6] * mag;
				b[i][5] -= dz * b[j][6] * mag; b[j][5] += dz * b[i][6] * mag;
			}
		for (i = 0; i < b.length; i++) {
			b[i][0] += 0.01 * b[i][3];
			b[i][1] += 0.01 * b[i][4];
			b[i][2] += 0.01 * b[i][5];
		}
	}
	return b[1][0].toFixed(6);
}

function sieve(n) {
	var p = [], i, j, c = 0;
	for (i = 0; i <= n; i++)
		p.push(true);
	for (i = 2; i * i <= n; i++)
		if (p[i])
			for (j = i * i; j <= n; j += i)
				p[j] = false;
	for (i = 2; i <= n; i++)
		if (p[i])
			c++;
	return c;
}

// Tokenize and run "a b + c * ..." programs on a stack.
function run(src, vars) {
	var toks = src.split(/\s+/), st = [], i, t, a, b;
	for (i = 0; i < toks.length; i++) {
		t = toks[i];
		switch (t) {
		case '+': b = st.pop(); a = st.pop(); st.push(a + b); break;
		case '-': b = st.pop(); a = st.pop(); st.push(a - b); break;
		case '*': b = st.pop(); a = st.pop(); st.push((a * b) % 1000003); break;
		case 'dup': st.push(st[st.length - 1]); break;
		case 'swap': b = st.pop(); a = st.pop(); st.push(b); st.push(a); break;
		default:
			st.push(t in vars ? vars[t] : parseInt(t, 10));
		}
	}
	return st.pop();
}

var memo = {};
function paths(r, c) {
	var key = r + ',' + c;
	if (r === 0 || c === 0)
		return 1;
	if (memo[key] === undefined)
		memo[key] = (paths(r - 1, c) + paths(r, c - 1)) % 1000000007;
	return memo[key];
}

print('nbody', nbody(2000));
print('primes', sieve(60000));
var prog = 'x y + dup * z - 7 swap - x * dup + y +', acc = 0, k;
for (k = 0; k < 3000; k++)
	acc = (acc + run(prog, { x: k % 13, y: k % 7, z: k % 5 })) % 1000003;
print('stack', acc);
print('paths', paths(90, 90));
var csv = [], fields, sum = 0;
for (k = 0; k < 1500; k++)
	csv.push([k, 'item' + k, (k * 37) % 101, k % 2 ? 'odd' : 'even'].join(';'));
for (k = 0; k < csv.length; k++) {
	fields = csv[k].split(';');
	if (fields[3] === 'odd')
		sum += +fields[2] * fields[1].length;
}
print('csv', sum);
