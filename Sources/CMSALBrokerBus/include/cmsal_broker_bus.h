// D-Bus for the Linux broker, through sd-bus of libsystemd opened at run time.
//
// libsystemd is not a link-time dependency: cmsal_bus_load() opens libsystemd.so.0 with dlopen the
// first time a broker call needs it, so a program that links the MSALBroker product starts (and
// uses the library's own flows) where it is missing. Every sd-bus call of the package goes through
// the functions below; sd-bus's variadic functions (message append and read, replies) are called
// only here, in C, with fixed signatures.
//
// Building needs no libsystemd header (libsystemd-dev): the bus and message objects are opaque,
// and sd_bus_error is declared as sd-bus's ABI has it.
#ifndef CMSAL_BROKER_BUS_H
#define CMSAL_BROKER_BUS_H

#include <errno.h>
#include <stdint.h>

/// A connection to a bus (sd-bus's `sd_bus`, opaque).
typedef struct cmsal_sd_bus cmsal_bus;
/// A D-Bus message (sd-bus's `sd_bus_message`, opaque).
typedef struct cmsal_sd_bus_message cmsal_bus_message;

/// Loads libsystemd.so.0, once per process (later calls return the first outcome). Returns 1 when
/// it is ready; 0 otherwise, with a static message in *reason. Every other cmsal_bus_ function
/// below may be called only after a call that returned 1.
int cmsal_bus_load(const char **reason);

/// Connects to the bus at `address` (a D-Bus address such as "unix:path=/run/user/1000/bus"), or
/// to the user's session bus when `address` is NULL. Returns 0 with *bus set, or a negative errno.
/// The connection completes its handshake during the first call, within that call's timeout.
int cmsal_bus_open(const char *address, cmsal_bus **bus);

/// Flushes and closes a connection.
void cmsal_bus_close(cmsal_bus *bus);

/// Calls `member` of `interface` on `path` of `destination` with three string arguments and waits
/// at most `timeout_usec` microseconds for a reply of one string. Returns 0 with *reply set
/// (malloc'd, free with cmsal_bus_free); or a negative errno, with *error_name and *error_message
/// set (malloc'd, or NULL) when the reply was a D-Bus error. -ETIMEDOUT: no reply in time.
int cmsal_bus_call_sss(cmsal_bus *bus, const char *destination, const char *path, const char *interface,
                       const char *member, const char *first, const char *second, const char *third,
                       uint64_t timeout_usec, char **reply, char **error_name, char **error_message);

/// Frees a string handed out by this target.
void cmsal_bus_free(char *text);

/// Asks the bus for `name` (no queueing, no replacement). Returns 0 when this connection owns it,
/// -EEXIST when another connection does, or another negative errno.
int cmsal_bus_request_name(cmsal_bus *bus, const char *name);

/// Waits at most `timeout_usec` microseconds for the next method call to this connection that no
/// handler took. Returns 1 with *call set (release it with cmsal_bus_message_unref after
/// answering it, or without answering: the caller then waits for its own timeout), 0 when none
/// came in time, or a negative errno.
int cmsal_bus_next_call(cmsal_bus *bus, uint64_t timeout_usec, cmsal_bus_message **call);

/// The member, interface, object path and sender of a method call (valid while it is alive).
const char *cmsal_bus_message_member(cmsal_bus_message *message);
const char *cmsal_bus_message_interface(cmsal_bus_message *message);
const char *cmsal_bus_message_path(cmsal_bus_message *message);

/// Reads a call's signature: 0 with the three strings set (valid while the message is alive) when
/// it is (sss), or a negative errno.
int cmsal_bus_message_read_sss(cmsal_bus_message *message, const char **first, const char **second,
                               const char **third);

/// Answers a method call with one string. Returns 0 or a negative errno.
int cmsal_bus_reply_string(cmsal_bus_message *call, const char *text);

/// Answers a method call with the D-Bus error `name` and `message`. Returns 0 or a negative errno.
int cmsal_bus_reply_error(cmsal_bus_message *call, const char *name, const char *message);

/// Releases a message.
void cmsal_bus_message_unref(cmsal_bus_message *message);

#endif
