// libkeyutils, opened on first use: see include/cmsal_keyutils.h.
#include "cmsal_keyutils.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The libkeyutils functions the package calls, as the loaded library has them.
static struct {
    key_serial_t (*add_key)(const char *, const char *, const void *, size_t, key_serial_t);
    long (*keyctl_get_persistent)(uid_t, key_serial_t);
    long (*keyctl_search)(key_serial_t, const char *, const char *, key_serial_t);
    long (*keyctl_read_alloc)(key_serial_t, void **);
    long (*keyctl_setperm)(key_serial_t, key_perm_t);
    long (*keyctl_link)(key_serial_t, key_serial_t);
    long (*keyctl_unlink)(key_serial_t, key_serial_t);
} keyutils;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_failure[512];

// Resolves one symbol into its slot; records the first missing one.
#define CMSAL_RESOLVE(slot)                                                                        \
    do {                                                                                           \
        void *symbol = dlsym(library, #slot);                                                      \
        if (symbol == NULL) {                                                                      \
            snprintf(load_failure, sizeof load_failure, "libkeyutils.so.1 has no %s", #slot);      \
            return;                                                                                \
        }                                                                                          \
        memcpy(&keyutils.slot, &symbol, sizeof symbol);                                            \
    } while (0)

static void load(void) {
    void *library = dlopen("libkeyutils.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(load_failure, sizeof load_failure, "libkeyutils.so.1 could not be loaded: %s",
                 why != NULL ? why : "no reason given");
        return;
    }
    CMSAL_RESOLVE(add_key);
    CMSAL_RESOLVE(keyctl_get_persistent);
    CMSAL_RESOLVE(keyctl_search);
    CMSAL_RESOLVE(keyctl_read_alloc);
    CMSAL_RESOLVE(keyctl_setperm);
    CMSAL_RESOLVE(keyctl_link);
    CMSAL_RESOLVE(keyctl_unlink);
    loaded = 1;
}

int cmsal_keyutils_load(const char **reason) {
    pthread_once(&load_once, load);
    if (!loaded && reason != NULL) *reason = load_failure;
    return loaded;
}

key_serial_t cmsal_add_key(const char *type, const char *description, const void *payload,
                           size_t length, key_serial_t keyring) {
    return keyutils.add_key(type, description, payload, length, keyring);
}

long cmsal_keyctl_get_persistent(uid_t uid, key_serial_t keyring) {
    return keyutils.keyctl_get_persistent(uid, keyring);
}

long cmsal_keyctl_search(key_serial_t keyring, const char *type, const char *description,
                         key_serial_t destination) {
    return keyutils.keyctl_search(keyring, type, description, destination);
}

long cmsal_keyctl_read_alloc(key_serial_t key, void **buffer) {
    return keyutils.keyctl_read_alloc(key, buffer);
}

long cmsal_keyctl_setperm(key_serial_t key, key_perm_t permissions) {
    return keyutils.keyctl_setperm(key, permissions);
}

long cmsal_keyctl_link(key_serial_t key, key_serial_t keyring) {
    return keyutils.keyctl_link(key, keyring);
}

long cmsal_keyctl_unlink(key_serial_t key, key_serial_t keyring) {
    return keyutils.keyctl_unlink(key, keyring);
}
