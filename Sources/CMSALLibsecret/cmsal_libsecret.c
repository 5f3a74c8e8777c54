// libsecret, GLib, GObject and GIO, opened on first use: see include/cmsal_libsecret.h.
#include "cmsal_libsecret.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The libraries' scalar types, as their headers define them.
typedef int gboolean;
typedef unsigned int guint;
typedef size_t gsize;
typedef gsize GType;
typedef void *gpointer;
typedef guint (*GHashFunc)(const void *key);
typedef gboolean (*GEqualFunc)(const void *a, const void *b);
typedef void (*GDestroyNotify)(gpointer data);
typedef struct cmsal_g_variant GVariant;
typedef struct cmsal_g_variant_iter GVariantIter;
typedef struct cmsal_g_variant_type GVariantType;

// The enumeration values passed below (GLib's and libsecret's headers).
enum {
    G_BUS_TYPE_SESSION = 2,
    G_DBUS_CALL_FLAGS_NONE = 0,
    SECRET_SCHEMA_NONE = 0,
    SECRET_SCHEMA_ATTRIBUTE_STRING = 0,
    SECRET_SERVICE_OPEN_SESSION = 1 << 1,
    SECRET_SEARCH_ALL = 1 << 1,
    SECRET_COLLECTION_NONE = 0,
};

// The functions the package calls, as the loaded libraries have them.
static struct {
    // libglib-2.0.so.0
    void (*g_free)(gpointer);
    void (*g_error_free)(cmsal_g_error *);
    char *(*g_strdup)(const char *);
    int (*g_strcmp0)(const char *, const char *);
    guint (*g_str_hash)(const void *);
    gboolean (*g_str_equal)(const void *, const void *);
    cmsal_g_hash_table *(*g_hash_table_new)(GHashFunc, GEqualFunc);
    cmsal_g_hash_table *(*g_hash_table_new_full)(GHashFunc, GEqualFunc, GDestroyNotify,
                                                 GDestroyNotify);
    gboolean (*g_hash_table_replace)(cmsal_g_hash_table *, gpointer, gpointer);
    gboolean (*g_hash_table_insert)(cmsal_g_hash_table *, gpointer, gpointer);
    cmsal_g_list *(*g_hash_table_get_keys)(cmsal_g_hash_table *);
    void (*g_hash_table_unref)(cmsal_g_hash_table *);
    void (*g_list_free)(cmsal_g_list *);
    void (*g_list_free_full)(cmsal_g_list *, GDestroyNotify);
    cmsal_g_main_context *(*g_main_context_new)(void);
    void (*g_main_context_push_thread_default)(cmsal_g_main_context *);
    void (*g_main_context_pop_thread_default)(cmsal_g_main_context *);
    void (*g_main_context_unref)(cmsal_g_main_context *);
    const GVariantType *(*g_variant_type_checked_)(const char *);
    GVariant *(*g_variant_new)(const char *, ...);
    void (*g_variant_get)(GVariant *, const char *, ...);
    gboolean (*g_variant_iter_next)(GVariantIter *, const char *, ...);
    void (*g_variant_iter_free)(GVariantIter *);
    void (*g_variant_unref)(GVariant *);
    // libgobject-2.0.so.0
    void (*g_object_unref)(gpointer);
    // libgio-2.0.so.0
    uint32_t (*g_io_error_quark)(void);
    cmsal_g_cancellable *(*g_cancellable_new)(void);
    void (*g_cancellable_cancel)(cmsal_g_cancellable *);
    cmsal_g_dbus_connection *(*g_bus_get_sync)(int, cmsal_g_cancellable *, cmsal_g_error **);
    gboolean (*g_dbus_connection_is_closed)(cmsal_g_dbus_connection *);
    GVariant *(*g_dbus_connection_call_sync)(cmsal_g_dbus_connection *, const char *, const char *,
                                             const char *, const char *, GVariant *,
                                             const GVariantType *, int, int, cmsal_g_cancellable *,
                                             cmsal_g_error **);
    char *(*g_dbus_error_get_remote_error)(const cmsal_g_error *);
    // libsecret-1.so.0
    uint32_t (*secret_error_get_quark)(void);
    cmsal_secret_schema *(*secret_schema_newv)(const char *, int, cmsal_g_hash_table *);
    void (*secret_schema_unref)(cmsal_secret_schema *);
    GType (*secret_service_get_type)(void);
    cmsal_secret_service *(*secret_service_open_sync)(GType, const char *, int,
                                                      cmsal_g_cancellable *, cmsal_g_error **);
    cmsal_g_list *(*secret_service_search_sync)(cmsal_secret_service *, const cmsal_secret_schema *,
                                                cmsal_g_hash_table *, int, cmsal_g_cancellable *,
                                                cmsal_g_error **);
    gboolean (*secret_service_store_sync)(cmsal_secret_service *, const cmsal_secret_schema *,
                                          cmsal_g_hash_table *, const char *, const char *,
                                          cmsal_secret_value *, cmsal_g_cancellable *,
                                          cmsal_g_error **);
    cmsal_secret_collection *(*secret_collection_for_alias_sync)(cmsal_secret_service *,
                                                                 const char *, int,
                                                                 cmsal_g_cancellable *,
                                                                 cmsal_g_error **);
    gboolean (*secret_collection_get_locked)(cmsal_secret_collection *);
    gboolean (*secret_item_get_locked)(cmsal_secret_item *);
    gboolean (*secret_item_delete_sync)(cmsal_secret_item *, cmsal_g_cancellable *,
                                        cmsal_g_error **);
    gboolean (*secret_item_load_secret_sync)(cmsal_secret_item *, cmsal_g_cancellable *,
                                             cmsal_g_error **);
    cmsal_secret_value *(*secret_item_get_secret)(cmsal_secret_item *);
    cmsal_secret_value *(*secret_value_new)(const char *, long, const char *);
    const char *(*secret_value_get)(cmsal_secret_value *, gsize *);
    void (*secret_value_unref)(gpointer);
} lib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_failure[512];

// Opens one library; records why it could not be.
static void *open_library(const char *name) {
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(load_failure, sizeof load_failure, "%s could not be loaded: %s", name,
                 why != NULL ? why : "no reason given");
    }
    return library;
}

// Resolves one symbol of `library` (named `library_name`) into its slot; records the first
// missing one.
#define CMSAL_RESOLVE(library, library_name, slot)                                                 \
    do {                                                                                           \
        void *symbol = dlsym(library, #slot);                                                      \
        if (symbol == NULL) {                                                                      \
            snprintf(load_failure, sizeof load_failure, "%s has no %s", library_name, #slot);      \
            return;                                                                                \
        }                                                                                          \
        memcpy(&lib.slot, &symbol, sizeof symbol);                                                 \
    } while (0)

static void load(void) {
    // libsecret first: it is the one most often missing, and it brings the other three.
    void *secret = open_library("libsecret-1.so.0");
    if (secret == NULL) return;
    void *glib = open_library("libglib-2.0.so.0");
    if (glib == NULL) return;
    void *gobject = open_library("libgobject-2.0.so.0");
    if (gobject == NULL) return;
    void *gio = open_library("libgio-2.0.so.0");
    if (gio == NULL) return;

    const char *name = "libglib-2.0.so.0";
    CMSAL_RESOLVE(glib, name, g_free);
    CMSAL_RESOLVE(glib, name, g_error_free);
    CMSAL_RESOLVE(glib, name, g_strdup);
    CMSAL_RESOLVE(glib, name, g_strcmp0);
    CMSAL_RESOLVE(glib, name, g_str_hash);
    CMSAL_RESOLVE(glib, name, g_str_equal);
    CMSAL_RESOLVE(glib, name, g_hash_table_new);
    CMSAL_RESOLVE(glib, name, g_hash_table_new_full);
    CMSAL_RESOLVE(glib, name, g_hash_table_replace);
    CMSAL_RESOLVE(glib, name, g_hash_table_insert);
    CMSAL_RESOLVE(glib, name, g_hash_table_get_keys);
    CMSAL_RESOLVE(glib, name, g_hash_table_unref);
    CMSAL_RESOLVE(glib, name, g_list_free);
    CMSAL_RESOLVE(glib, name, g_list_free_full);
    CMSAL_RESOLVE(glib, name, g_main_context_new);
    CMSAL_RESOLVE(glib, name, g_main_context_push_thread_default);
    CMSAL_RESOLVE(glib, name, g_main_context_pop_thread_default);
    CMSAL_RESOLVE(glib, name, g_main_context_unref);
    CMSAL_RESOLVE(glib, name, g_variant_type_checked_);
    CMSAL_RESOLVE(glib, name, g_variant_new);
    CMSAL_RESOLVE(glib, name, g_variant_get);
    CMSAL_RESOLVE(glib, name, g_variant_iter_next);
    CMSAL_RESOLVE(glib, name, g_variant_iter_free);
    CMSAL_RESOLVE(glib, name, g_variant_unref);
    name = "libgobject-2.0.so.0";
    CMSAL_RESOLVE(gobject, name, g_object_unref);
    name = "libgio-2.0.so.0";
    CMSAL_RESOLVE(gio, name, g_io_error_quark);
    CMSAL_RESOLVE(gio, name, g_cancellable_new);
    CMSAL_RESOLVE(gio, name, g_cancellable_cancel);
    CMSAL_RESOLVE(gio, name, g_bus_get_sync);
    CMSAL_RESOLVE(gio, name, g_dbus_connection_is_closed);
    CMSAL_RESOLVE(gio, name, g_dbus_connection_call_sync);
    CMSAL_RESOLVE(gio, name, g_dbus_error_get_remote_error);
    name = "libsecret-1.so.0";
    CMSAL_RESOLVE(secret, name, secret_error_get_quark);
    CMSAL_RESOLVE(secret, name, secret_schema_newv);
    CMSAL_RESOLVE(secret, name, secret_schema_unref);
    CMSAL_RESOLVE(secret, name, secret_service_get_type);
    CMSAL_RESOLVE(secret, name, secret_service_open_sync);
    CMSAL_RESOLVE(secret, name, secret_service_search_sync);
    CMSAL_RESOLVE(secret, name, secret_service_store_sync);
    CMSAL_RESOLVE(secret, name, secret_collection_for_alias_sync);
    CMSAL_RESOLVE(secret, name, secret_collection_get_locked);
    CMSAL_RESOLVE(secret, name, secret_item_get_locked);
    CMSAL_RESOLVE(secret, name, secret_item_delete_sync);
    CMSAL_RESOLVE(secret, name, secret_item_load_secret_sync);
    CMSAL_RESOLVE(secret, name, secret_item_get_secret);
    CMSAL_RESOLVE(secret, name, secret_value_new);
    CMSAL_RESOLVE(secret, name, secret_value_get);
    CMSAL_RESOLVE(secret, name, secret_value_unref);
    loaded = 1;
}

int cmsal_secret_load(const char **reason) {
    pthread_once(&load_once, load);
    if (!loaded && reason != NULL) *reason = load_failure;
    return loaded;
}

void cmsal_secret_set_session_bus(const char *address) {
    setenv("DBUS_SESSION_BUS_ADDRESS", address, 1);
}

// GLib, GObject, GIO.

void cmsal_g_free(void *memory) { lib.g_free(memory); }
void cmsal_g_error_free(cmsal_g_error *error) { lib.g_error_free(error); }
void cmsal_g_object_unref(void *object) { lib.g_object_unref(object); }
uint32_t cmsal_g_io_error_quark(void) { return lib.g_io_error_quark(); }
cmsal_g_cancellable *cmsal_g_cancellable_new(void) { return lib.g_cancellable_new(); }

void cmsal_g_cancellable_cancel(cmsal_g_cancellable *cancellable) {
    lib.g_cancellable_cancel(cancellable);
}

cmsal_g_main_context *cmsal_g_main_context_new(void) { return lib.g_main_context_new(); }

void cmsal_g_main_context_push_thread_default(cmsal_g_main_context *context) {
    lib.g_main_context_push_thread_default(context);
}

void cmsal_g_main_context_pop_thread_default(cmsal_g_main_context *context) {
    lib.g_main_context_pop_thread_default(context);
}

void cmsal_g_main_context_unref(cmsal_g_main_context *context) {
    lib.g_main_context_unref(context);
}

cmsal_g_dbus_connection *cmsal_g_bus_get_session_sync(cmsal_g_cancellable *cancellable,
                                                      cmsal_g_error **error) {
    return lib.g_bus_get_sync(G_BUS_TYPE_SESSION, cancellable, error);
}

int cmsal_g_dbus_connection_is_closed(cmsal_g_dbus_connection *bus) {
    return lib.g_dbus_connection_is_closed(bus) ? 1 : 0;
}

char *cmsal_g_dbus_error_get_remote_error(const cmsal_g_error *error) {
    return lib.g_dbus_error_get_remote_error(error);
}

void cmsal_g_hash_table_unref(cmsal_g_hash_table *table) { lib.g_hash_table_unref(table); }

void cmsal_secret_item_list_free(cmsal_g_list *items) {
    lib.g_list_free_full(items, lib.g_object_unref);
}

// libsecret.

uint32_t cmsal_secret_error_get_quark(void) { return lib.secret_error_get_quark(); }

cmsal_g_hash_table *cmsal_secret_attributes_new(void) {
    return lib.g_hash_table_new_full(lib.g_str_hash, lib.g_str_equal, lib.g_free, lib.g_free);
}

void cmsal_secret_attributes_set(cmsal_g_hash_table *attributes, const char *name,
                                 const char *value) {
    lib.g_hash_table_replace(attributes, lib.g_strdup(name), lib.g_strdup(value));
}

cmsal_secret_schema *cmsal_secret_schema_new(const char *name, cmsal_g_hash_table *attributes) {
    // The attribute types: each a string. (GINT_TO_POINTER(SECRET_SCHEMA_ATTRIBUTE_STRING) in C
    // with GLib's headers; the schema copies the names.)
    cmsal_g_hash_table *types = lib.g_hash_table_new(lib.g_str_hash, lib.g_str_equal);
    cmsal_g_list *names = lib.g_hash_table_get_keys(attributes);
    for (cmsal_g_list *node = names; node != NULL; node = node->next) {
        lib.g_hash_table_insert(types, node->data,
                                (gpointer)(intptr_t)SECRET_SCHEMA_ATTRIBUTE_STRING);
    }
    lib.g_list_free(names);
    cmsal_secret_schema *schema = lib.secret_schema_newv(name, SECRET_SCHEMA_NONE, types);
    lib.g_hash_table_unref(types);
    return schema;
}

void cmsal_secret_schema_unref(cmsal_secret_schema *schema) { lib.secret_schema_unref(schema); }

cmsal_secret_service *cmsal_secret_service_open_session_sync(cmsal_g_cancellable *cancellable,
                                                              cmsal_g_error **error) {
    return lib.secret_service_open_sync(lib.secret_service_get_type(), NULL,
                                        SECRET_SERVICE_OPEN_SESSION, cancellable, error);
}

cmsal_g_list *cmsal_secret_service_search_all_sync(cmsal_secret_service *service,
                                                   const cmsal_secret_schema *schema,
                                                   cmsal_g_hash_table *attributes,
                                                   cmsal_g_cancellable *cancellable,
                                                   cmsal_g_error **error) {
    return lib.secret_service_search_sync(service, schema, attributes, SECRET_SEARCH_ALL,
                                          cancellable, error);
}

int cmsal_secret_service_store_sync(cmsal_secret_service *service, const cmsal_secret_schema *schema,
                                    cmsal_g_hash_table *attributes, const char *collection,
                                    const char *label, cmsal_secret_value *value,
                                    cmsal_g_cancellable *cancellable, cmsal_g_error **error) {
    return lib.secret_service_store_sync(service, schema, attributes, collection, label, value,
                                         cancellable, error)
               ? 1
               : 0;
}

cmsal_secret_collection *cmsal_secret_collection_for_alias_sync(cmsal_secret_service *service,
                                                                const char *alias,
                                                                cmsal_g_cancellable *cancellable,
                                                                cmsal_g_error **error) {
    return lib.secret_collection_for_alias_sync(service, alias, SECRET_COLLECTION_NONE,
                                                cancellable, error);
}

int cmsal_secret_collection_get_locked(cmsal_secret_collection *collection) {
    return lib.secret_collection_get_locked(collection) ? 1 : 0;
}

int cmsal_secret_item_get_locked(cmsal_secret_item *item) {
    return lib.secret_item_get_locked(item) ? 1 : 0;
}

int cmsal_secret_item_delete_sync(cmsal_secret_item *item, cmsal_g_cancellable *cancellable,
                                  cmsal_g_error **error) {
    return lib.secret_item_delete_sync(item, cancellable, error) ? 1 : 0;
}

int cmsal_secret_item_load_secret_sync(cmsal_secret_item *item, cmsal_g_cancellable *cancellable,
                                       cmsal_g_error **error) {
    return lib.secret_item_load_secret_sync(item, cancellable, error) ? 1 : 0;
}

cmsal_secret_value *cmsal_secret_item_get_secret(cmsal_secret_item *item) {
    return lib.secret_item_get_secret(item);
}

cmsal_secret_value *cmsal_secret_value_new(const char *secret, long length,
                                           const char *content_type) {
    return lib.secret_value_new(secret, length, content_type);
}

const char *cmsal_secret_value_get(cmsal_secret_value *value, size_t *length) {
    gsize size = 0;
    const char *bytes = lib.secret_value_get(value, &size);
    if (length != NULL) *length = size;
    return bytes;
}

void cmsal_secret_value_unref(cmsal_secret_value *value) { lib.secret_value_unref(value); }

// D-Bus questions.

const char *cmsal_secret_bus_name(void) {
    const char *name = getenv("SECRET_SERVICE_BUS_NAME");
    return name != NULL ? name : "org.freedesktop.secrets";
}

int cmsal_dbus_name_has_owner(cmsal_g_dbus_connection *bus, const char *name,
                              cmsal_g_cancellable *cancellable, cmsal_g_error **error) {
    GVariant *reply = lib.g_dbus_connection_call_sync(
        bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
        "NameHasOwner", lib.g_variant_new("(s)", name), lib.g_variant_type_checked_("(b)"),
        G_DBUS_CALL_FLAGS_NONE, -1, cancellable, error);
    if (reply == NULL) return -1;
    gboolean owned = 0;
    lib.g_variant_get(reply, "(b)", &owned);
    lib.g_variant_unref(reply);
    return owned ? 1 : 0;
}

int cmsal_dbus_name_is_activatable(cmsal_g_dbus_connection *bus, const char *name,
                                   cmsal_g_cancellable *cancellable, cmsal_g_error **error) {
    GVariant *reply = lib.g_dbus_connection_call_sync(
        bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
        "ListActivatableNames", NULL, lib.g_variant_type_checked_("(as)"), G_DBUS_CALL_FLAGS_NONE,
        -1, cancellable, error);
    if (reply == NULL) return -1;
    GVariantIter *names = NULL;
    const char *each = NULL;
    int found = 0;
    lib.g_variant_get(reply, "(as)", &names);
    while (!found && lib.g_variant_iter_next(names, "&s", &each)) {
        if (lib.g_strcmp0(each, name) == 0) found = 1;
    }
    lib.g_variant_iter_free(names);
    lib.g_variant_unref(reply);
    return found;
}
