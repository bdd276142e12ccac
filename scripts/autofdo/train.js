// SPDX-License-Identifier: GPL-2.0
// make autofdo: the training script of duk (Duktape's interpreter).
// Objects and their properties, string building, sorting with a
// comparison, JSON both ways, regular expressions and closures.
function Account(id, owner) {
	this.id = id;
	this.owner = owner;
	this.balance = 0;
	this.history = [];
}
Account.prototype.post = function (amount, what) {
	this.balance += amount;
	this.history.push({ amount: amount, what: what });
};

function makeCounter(step) {
	var n = 0;
	return function () { n += step; return n; };
}

var names = ['ada', 'brian', 'carol', 'dennis', 'edsger', 'frances', 'grace', 'ken'];
var accounts = [];
var i, j, k;
for (i = 0; i < 200; i++)
	accounts.push(new Account(i, names[i % names.length] + '-' + (i * 7919 % 1000)));

var seed = 12345;
function rnd() {
	seed = (seed * 1103515245 + 12345) & 0x7fffffff;
	return seed;
}
for (k = 0; k < 15; k++) {
	for (i = 0; i < accounts.length; i++) {
		var a = accounts[i];
		a.post(rnd() % 1000 - 400, k % 3 ? 'card' : 'transfer');
	}
}

var byBalance = accounts.slice().sort(function (x, y) {
	return y.balance - x.balance || (x.owner < y.owner ? -1 : 1);
});
print('richest', byBalance[0].owner, byBalance[0].balance);

var text = JSON.stringify(accounts.slice(0, 120));
var total = 0;
for (k = 0; k < 4; k++) {
	var back = JSON.parse(text);
	for (i = 0; i < back.length; i++)
		for (j = 0; j < back[i].history.length; j++)
			total += back[i].history[j].amount;
}
print('json', text.length, total);

var words = [];
for (i = 0; i < 1500; i++)
	words.push(names[rnd() % names.length] + (rnd() % 97));
var line = words.join(' ');
var upper = 0, counter = makeCounter(3), tally = {};
for (k = 0; k < 3; k++) {
	line.replace(/([a-z]+)(\d+)/g, function (all, w, d) {
		tally[w] = (tally[w] || 0) + parseInt(d, 10);
		upper += counter() & 1;
		return w.toUpperCase();
	});
}
var keys = Object.keys(tally).sort();
for (i = 0; i < keys.length; i++)
	print(keys[i], tally[keys[i]]);
print('upper', upper);
