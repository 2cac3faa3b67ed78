/*
 * ctl-path.h: gridcrowd-ctl's `path` and `next` commands (ctl-path.c).
 */
#ifndef GRIDCROWD_CTL_PATH_H
#define GRIDCROWD_CTL_PATH_H

/*
 * Run `path` or `next` (cmd) with the arguments after the command name, on
 * world world_name (NULL: the default).  Prints the answer on stdout, an
 * error on stderr, and returns the tool's exit code.
 */
int ctl_path_main(const char *cmd, const char *world_name, int argc,
                  char **argv);

#endif
