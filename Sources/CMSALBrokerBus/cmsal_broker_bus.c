// sd-bus of libsystemd, opened on first use: see include/cmsal_broker_bus.h.
#include "cmsal_broker_bus.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// sd-bus's error object, as its ABI has it (sd-bus's SD_BUS_ERROR_NULL is all zeros).
typedef struct {
    const char *name;
    const char *message;
    int need_free;
} cmsal_sd_bus_error;

// sd-bus's message types (the D-Bus specification's numbers).
enum { CMSAL_BUS_MESSAGE_METHOD_CALL = 1 };

// The libsystemd functions the package calls, as the loaded library has them.
static struct {
    int (*sd_bus_new)(cmsal_bus **);
    int (*sd_bus_open_user)(cmsal_bus **);
    int (*sd_bus_set_address)(cmsal_bus *, const char *);
    int (*sd_bus_set_bus_client)(cmsal_bus *, int);
    int (*sd_bus_start)(cmsal_bus *);
    cmsal_bus *(*sd_bus_flush_close_unref)(cmsal_bus *);
    cmsal_bus *(*sd_bus_unref)(cmsal_bus *);
    int (*sd_bus_message_new_method_call)(cmsal_bus *, cmsal_bus_message **, const char *, const char *,
                                          const char *, const char *);
    int (*sd_bus_message_append)(cmsal_bus_message *, const char *, ...);
    int (*sd_bus_message_read)(cmsal_bus_message *, const char *, ...);
    int (*sd_bus_call)(cmsal_bus *, cmsal_bus_message *, uint64_t, cmsal_sd_bus_error *, cmsal_bus_message **);
    cmsal_bus_message *(*sd_bus_message_unref)(cmsal_bus_message *);
    void (*sd_bus_error_free)(cmsal_sd_bus_error *);
    int (*sd_bus_request_name)(cmsal_bus *, const char *, uint64_t);
    int (*sd_bus_process)(cmsal_bus *, cmsal_bus_message **);
    int (*sd_bus_wait)(cmsal_bus *, uint64_t);
    int (*sd_bus_message_get_type)(cmsal_bus_message *, uint8_t *);
    const char *(*sd_bus_message_get_member)(cmsal_bus_message *);
    const char *(*sd_bus_message_get_interface)(cmsal_bus_message *);
    const char *(*sd_bus_message_get_path)(cmsal_bus_message *);
    int (*sd_bus_reply_method_return)(cmsal_bus_message *, const char *, ...);
    int (*sd_bus_reply_method_error)(cmsal_bus_message *, const cmsal_sd_bus_error *);
} systemd;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_failure[512];

// Resolves one symbol into its slot; records the first missing one.
#define CMSAL_RESOLVE(slot)                                                                        \
    do {                                                                                           \
        void *symbol = dlsym(library, #slot);                                                      \
        if (symbol == NULL) {                                                                      \
            snprintf(load_failure, sizeof load_failure, "libsystemd.so.0 has no %s", #slot);       \
            return;                                                                                \
        }                                                                                          \
        memcpy(&systemd.slot, &symbol, sizeof symbol);                                             \
    } while (0)

static void load(void) {
    void *library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(load_failure, sizeof load_failure, "libsystemd.so.0 could not be loaded: %s",
                 why != NULL ? why : "no reason given");
        return;
    }
    CMSAL_RESOLVE(sd_bus_new);
    CMSAL_RESOLVE(sd_bus_open_user);
    CMSAL_RESOLVE(sd_bus_set_address);
    CMSAL_RESOLVE(sd_bus_set_bus_client);
    CMSAL_RESOLVE(sd_bus_start);
    CMSAL_RESOLVE(sd_bus_flush_close_unref);
    CMSAL_RESOLVE(sd_bus_unref);
    CMSAL_RESOLVE(sd_bus_message_new_method_call);
    CMSAL_RESOLVE(sd_bus_message_append);
    CMSAL_RESOLVE(sd_bus_message_read);
    CMSAL_RESOLVE(sd_bus_call);
    CMSAL_RESOLVE(sd_bus_message_unref);
    CMSAL_RESOLVE(sd_bus_error_free);
    CMSAL_RESOLVE(sd_bus_request_name);
    CMSAL_RESOLVE(sd_bus_process);
    CMSAL_RESOLVE(sd_bus_wait);
    CMSAL_RESOLVE(sd_bus_message_get_type);
    CMSAL_RESOLVE(sd_bus_message_get_member);
    CMSAL_RESOLVE(sd_bus_message_get_interface);
    CMSAL_RESOLVE(sd_bus_message_get_path);
    CMSAL_RESOLVE(sd_bus_reply_method_return);
    CMSAL_RESOLVE(sd_bus_reply_method_error);
    loaded = 1;
}

int cmsal_bus_load(const char **reason) {
    pthread_once(&load_once, load);
    if (!loaded && reason != NULL) *reason = load_failure;
    return loaded;
}

int cmsal_bus_open(const char *address, cmsal_bus **bus) {
    *bus = NULL;
    if (address == NULL) return systemd.sd_bus_open_user(bus);
    cmsal_bus *made = NULL;
    int status = systemd.sd_bus_new(&made);
    if (status < 0) return status;
    if ((status = systemd.sd_bus_set_address(made, address)) < 0 ||
        (status = systemd.sd_bus_set_bus_client(made, 1)) < 0 || (status = systemd.sd_bus_start(made)) < 0) {
        systemd.sd_bus_unref(made);
        return status;
    }
    *bus = made;
    return 0;
}

void cmsal_bus_close(cmsal_bus *bus) {
    if (bus != NULL) systemd.sd_bus_flush_close_unref(bus);
}

static char *copy(const char *text) { return text != NULL ? strdup(text) : NULL; }

int cmsal_bus_call_sss(cmsal_bus *bus, const char *destination, const char *path, const char *interface,
                       const char *member, const char *first, const char *second, const char *third,
                       uint64_t timeout_usec, char **reply, char **error_name, char **error_message) {
    *reply = NULL;
    *error_name = NULL;
    *error_message = NULL;
    cmsal_bus_message *call = NULL;
    int status = systemd.sd_bus_message_new_method_call(bus, &call, destination, path, interface, member);
    if (status < 0) return status;
    status = systemd.sd_bus_message_append(call, "sss", first, second, third);
    if (status < 0) {
        systemd.sd_bus_message_unref(call);
        return status;
    }
    cmsal_sd_bus_error error = {NULL, NULL, 0};
    cmsal_bus_message *answer = NULL;
    status = systemd.sd_bus_call(bus, call, timeout_usec, &error, &answer);
    systemd.sd_bus_message_unref(call);
    if (status < 0) {
        *error_name = copy(error.name);
        *error_message = copy(error.message);
        systemd.sd_bus_error_free(&error);
        return status;
    }
    const char *text = NULL;
    status = systemd.sd_bus_message_read(answer, "s", &text);
    if (status >= 0) {
        *reply = copy(text);
        status = *reply != NULL ? 0 : -ENOMEM;
    }
    systemd.sd_bus_message_unref(answer);
    return status;
}

void cmsal_bus_free(char *text) { free(text); }

int cmsal_bus_request_name(cmsal_bus *bus, const char *name) {
    int status = systemd.sd_bus_request_name(bus, name, 0);
    return status < 0 ? status : 0;
}

int cmsal_bus_next_call(cmsal_bus *bus, uint64_t timeout_usec, cmsal_bus_message **call) {
    *call = NULL;
    int waited = 0;
    for (;;) {
        cmsal_bus_message *message = NULL;
        int status = systemd.sd_bus_process(bus, &message);
        if (status < 0) return status;
        if (message != NULL) {
            uint8_t type = 0;
            if (systemd.sd_bus_message_get_type(message, &type) >= 0 && type == CMSAL_BUS_MESSAGE_METHOD_CALL) {
                *call = message;
                return 1;
            }
            systemd.sd_bus_message_unref(message);
        }
        if (status > 0) continue;
        if (waited) return 0;
        status = systemd.sd_bus_wait(bus, timeout_usec);
        if (status < 0) return status;
        waited = 1;
    }
}

const char *cmsal_bus_message_member(cmsal_bus_message *message) {
    return systemd.sd_bus_message_get_member(message);
}

const char *cmsal_bus_message_interface(cmsal_bus_message *message) {
    return systemd.sd_bus_message_get_interface(message);
}

const char *cmsal_bus_message_path(cmsal_bus_message *message) { return systemd.sd_bus_message_get_path(message); }

int cmsal_bus_message_read_sss(cmsal_bus_message *message, const char **first, const char **second,
                               const char **third) {
    int status = systemd.sd_bus_message_read(message, "sss", first, second, third);
    return status < 0 ? status : 0;
}

int cmsal_bus_reply_string(cmsal_bus_message *call, const char *text) {
    int status = systemd.sd_bus_reply_method_return(call, "s", text);
    return status < 0 ? status : 0;
}

int cmsal_bus_reply_error(cmsal_bus_message *call, const char *name, const char *message) {
    cmsal_sd_bus_error error = {name, message, 0};
    int status = systemd.sd_bus_reply_method_error(call, &error);
    return status < 0 ? status : 0;
}

void cmsal_bus_message_unref(cmsal_bus_message *message) {
    if (message != NULL) systemd.sd_bus_message_unref(message);
}
