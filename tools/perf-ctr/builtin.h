/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr's commands, one builtin-*.c each: each parses its options and
 * drives the shared model in util/ (and afdo/ for aggregate). argv[0] is
 * the command's name; each returns the exit status.
 */
#ifndef PERF_CTR_BUILTIN_H
#define PERF_CTR_BUILTIN_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_aggregate(int argc, char **argv);

#endif
