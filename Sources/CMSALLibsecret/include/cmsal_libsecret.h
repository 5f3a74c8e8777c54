// The Secret Service (org.freedesktop.secrets) over D-Bus for Swift, through libsecret and the
// GLib, GObject and GIO functions its use needs, all opened at run time.
//
// None of these libraries is a link-time dependency: cmsal_secret_load() opens libsecret-1.so.0,
// libglib-2.0.so.0, libgobject-2.0.so.0 and libgio-2.0.so.0 with dlopen the first time a store
// needs them, so a program that links the MSALSecretService product (the portable `msal`) starts,
// and chooses another key store, where they are not installed. Every call of the package into them
// goes through the functions below. GLib's variadic functions (g_variant_new, g_variant_get) and
// its macros (G_VARIANT_TYPE, GINT_TO_POINTER) are used only inside cmsal_libsecret.c.
//
// No GLib header is included (their folders are not on the compiler's default path): the objects
// are opaque, and the two structures and the constants the package reads are declared here as the
// libraries' stable ABI defines them (the same values and layouts as in GLib's and libsecret's
// headers; cmsal_libsecret.c spells out the other constants it passes).
#ifndef CMSAL_LIBSECRET_H
#define CMSAL_LIBSECRET_H

#include <stddef.h>
#include <stdint.h>

/// A GError: its domain (a GQuark), code and message.
typedef struct cmsal_g_error {
    uint32_t domain;
    int32_t code;
    char *message;
} cmsal_g_error;

/// A node of a GList.
typedef struct cmsal_g_list {
    void *data;
    struct cmsal_g_list *next;
    struct cmsal_g_list *prev;
} cmsal_g_list;

typedef struct cmsal_g_cancellable cmsal_g_cancellable;
typedef struct cmsal_g_main_context cmsal_g_main_context;
typedef struct cmsal_g_dbus_connection cmsal_g_dbus_connection;
typedef struct cmsal_g_hash_table cmsal_g_hash_table;
typedef struct cmsal_secret_service cmsal_secret_service;
typedef struct cmsal_secret_schema cmsal_secret_schema;
typedef struct cmsal_secret_item cmsal_secret_item;
typedef struct cmsal_secret_value cmsal_secret_value;
typedef struct cmsal_secret_collection cmsal_secret_collection;

/// GIOErrorEnum codes the package tells apart.
enum {
    CMSAL_G_IO_ERROR_CLOSED = 18,
    CMSAL_G_IO_ERROR_CANCELLED = 19,
    CMSAL_G_IO_ERROR_TIMED_OUT = 24,
    CMSAL_G_IO_ERROR_BROKEN_PIPE = 44,
    CMSAL_G_IO_ERROR_CONNECTION_CLOSED = 44,
};

/// SecretError's code for a locked collection or item.
enum { CMSAL_SECRET_ERROR_IS_LOCKED = 2 };

/// Loads the four libraries and resolves every function, once per process (later calls return the
/// first outcome). Returns 1 when they are ready; 0 otherwise, with a static message in *reason
/// naming the library. Every other function below, except cmsal_secret_set_session_bus, may be
/// called only after a call that returned 1.
int cmsal_secret_load(const char **reason);

/// Sets DBUS_SESSION_BUS_ADDRESS (libc's setenv; needs no library).
void cmsal_secret_set_session_bus(const char *address);

// GLib, GObject, GIO.
void cmsal_g_free(void *memory);
void cmsal_g_error_free(cmsal_g_error *error);
void cmsal_g_object_unref(void *object);
uint32_t cmsal_g_io_error_quark(void);
cmsal_g_cancellable *cmsal_g_cancellable_new(void);
void cmsal_g_cancellable_cancel(cmsal_g_cancellable *cancellable);
cmsal_g_main_context *cmsal_g_main_context_new(void);
void cmsal_g_main_context_push_thread_default(cmsal_g_main_context *context);
void cmsal_g_main_context_pop_thread_default(cmsal_g_main_context *context);
void cmsal_g_main_context_unref(cmsal_g_main_context *context);
/// g_bus_get_sync(G_BUS_TYPE_SESSION, ...).
cmsal_g_dbus_connection *cmsal_g_bus_get_session_sync(cmsal_g_cancellable *cancellable,
                                                      cmsal_g_error **error);
int cmsal_g_dbus_connection_is_closed(cmsal_g_dbus_connection *bus);
/// The D-Bus error name of `error` (free it with cmsal_g_free), or NULL.
char *cmsal_g_dbus_error_get_remote_error(const cmsal_g_error *error);
void cmsal_g_hash_table_unref(cmsal_g_hash_table *table);
/// Frees a list of items with the reference each holds.
void cmsal_secret_item_list_free(cmsal_g_list *items);

// libsecret.
uint32_t cmsal_secret_error_get_quark(void);
/// A table of attributes (names and values are strings, copied into the table and freed with it).
cmsal_g_hash_table *cmsal_secret_attributes_new(void);
void cmsal_secret_attributes_set(cmsal_g_hash_table *attributes, const char *name, const char *value);
/// A schema named `name` whose attributes are the names in `attributes`, each a string.
cmsal_secret_schema *cmsal_secret_schema_new(const char *name, cmsal_g_hash_table *attributes);
void cmsal_secret_schema_unref(cmsal_secret_schema *schema);
/// secret_service_open_sync with a session for secrets (SECRET_SERVICE_OPEN_SESSION).
cmsal_secret_service *cmsal_secret_service_open_session_sync(cmsal_g_cancellable *cancellable,
                                                              cmsal_g_error **error);
/// secret_service_search_sync for every matching item, locked ones too (SECRET_SEARCH_ALL).
cmsal_g_list *cmsal_secret_service_search_all_sync(cmsal_secret_service *service,
                                                   const cmsal_secret_schema *schema,
                                                   cmsal_g_hash_table *attributes,
                                                   cmsal_g_cancellable *cancellable,
                                                   cmsal_g_error **error);
int cmsal_secret_service_store_sync(cmsal_secret_service *service, const cmsal_secret_schema *schema,
                                    cmsal_g_hash_table *attributes, const char *collection,
                                    const char *label, cmsal_secret_value *value,
                                    cmsal_g_cancellable *cancellable, cmsal_g_error **error);
/// secret_collection_for_alias_sync without loading items (SECRET_COLLECTION_NONE).
cmsal_secret_collection *cmsal_secret_collection_for_alias_sync(cmsal_secret_service *service,
                                                                const char *alias,
                                                                cmsal_g_cancellable *cancellable,
                                                                cmsal_g_error **error);
int cmsal_secret_collection_get_locked(cmsal_secret_collection *collection);
int cmsal_secret_item_get_locked(cmsal_secret_item *item);
int cmsal_secret_item_delete_sync(cmsal_secret_item *item, cmsal_g_cancellable *cancellable,
                                  cmsal_g_error **error);
int cmsal_secret_item_load_secret_sync(cmsal_secret_item *item, cmsal_g_cancellable *cancellable,
                                       cmsal_g_error **error);
cmsal_secret_value *cmsal_secret_item_get_secret(cmsal_secret_item *item);
cmsal_secret_value *cmsal_secret_value_new(const char *secret, long length, const char *content_type);
const char *cmsal_secret_value_get(cmsal_secret_value *value, size_t *length);
void cmsal_secret_value_unref(cmsal_secret_value *value);

// D-Bus questions (their replies are read with the variadic g_variant_get).
/// The bus name libsecret talks to: $SECRET_SERVICE_BUS_NAME, or org.freedesktop.secrets.
const char *cmsal_secret_bus_name(void);
/// Whether something on `bus` owns `name` (1), or not (0); -1 with `error` set when the bus did
/// not answer.
int cmsal_dbus_name_has_owner(cmsal_g_dbus_connection *bus, const char *name,
                              cmsal_g_cancellable *cancellable, cmsal_g_error **error);
/// Whether `bus` can start `name` on demand (a D-Bus service file names it): 1, 0, or -1 with
/// `error` set.
int cmsal_dbus_name_is_activatable(cmsal_g_dbus_connection *bus, const char *name,
                                   cmsal_g_cancellable *cancellable, cmsal_g_error **error);

#endif
