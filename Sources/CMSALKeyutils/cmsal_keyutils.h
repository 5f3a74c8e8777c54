// The Linux kernel key retention service through libkeyutils (Debian's libkeyutils-dev).
#include <keyutils.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

// errno as a function: Swift reads it through Glibc elsewhere, but this target imports no Glibc.
static inline int cmsal_keyutils_errno(void) { return errno; }
