// The Linux kernel key retention service for Swift, through libkeyutils opened at run time.
//
// libkeyutils is not a link-time dependency: cmsal_keyutils_load() opens libkeyutils.so.1 with
// dlopen the first time a key store needs it, so a program that links the MSALKernelKeyring product
// (the portable `msal`) starts, and chooses another key store, where the library is not installed.
// Every libkeyutils call of the package goes through the functions below.
//
// Building needs no libkeyutils header (libkeyutils-dev): the two types and the permission bits
// below are declared as libkeyutils' ABI and the kernel define them, and the special keyring
// numbers come from <linux/keyctl.h>, part of the C library's kernel headers.
#ifndef CMSAL_KEYUTILS_H
#define CMSAL_KEYUTILS_H

#include <errno.h>
#include <linux/keyctl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/// A key's serial number, as libkeyutils declares it.
typedef int32_t key_serial_t;
/// A key's permission mask, as libkeyutils declares it.
typedef uint32_t key_perm_t;

// Permission bits of a key (the kernel's include/linux/key.h, which is not exported to user space):
// what its possessor and what its owner may do.
#define CMSAL_KEY_POS_ALL 0x3f000000u
#define CMSAL_KEY_USR_VIEW 0x00010000u
#define CMSAL_KEY_USR_READ 0x00020000u
#define CMSAL_KEY_USR_WRITE 0x00040000u
#define CMSAL_KEY_USR_SEARCH 0x00080000u
#define CMSAL_KEY_USR_LINK 0x00100000u
#define CMSAL_KEY_USR_SETATTR 0x00200000u

/// Loads libkeyutils.so.1, once per process (later calls return the first outcome). Returns 1 when
/// it is ready; 0 otherwise, with a static message in *reason. Every other cmsal_ function below
/// may be called only after a call that returned 1.
int cmsal_keyutils_load(const char **reason);

key_serial_t cmsal_add_key(const char *type, const char *description, const void *payload,
                           size_t length, key_serial_t keyring);
long cmsal_keyctl_get_persistent(uid_t uid, key_serial_t keyring);
long cmsal_keyctl_search(key_serial_t keyring, const char *type, const char *description,
                         key_serial_t destination);
long cmsal_keyctl_read_alloc(key_serial_t key, void **buffer);
long cmsal_keyctl_setperm(key_serial_t key, key_perm_t permissions);
long cmsal_keyctl_link(key_serial_t key, key_serial_t keyring);
long cmsal_keyctl_unlink(key_serial_t key, key_serial_t keyring);

/// errno as a function: Swift reads it through Glibc elsewhere, but this target imports no Glibc.
static inline int cmsal_keyutils_errno(void) { return errno; }

#endif
