// The Linux kernel key retention service for Swift, through libkeyutils opened at run time.
//
// libkeyutils is not a link-time dependency: cmsal_keyutils_load() opens libkeyutils.so.1 with
// dlopen the first time a key store needs it, so a program that links the MSALKernelKeyring product
// (the portable `msal`) starts, and chooses another key store, where the library is not installed.
// Every libkeyutils call of the package goes through the functions below.
//
// <keyutils.h> is included for its types and constants only; nothing here links its functions.
#ifndef CMSAL_KEYUTILS_H
#define CMSAL_KEYUTILS_H

#include <errno.h>
#include <keyutils.h>
#include <stdlib.h>
#include <string.h>

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
