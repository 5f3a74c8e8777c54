// The Secret Service (org.freedesktop.secrets) over D-Bus through libsecret (Debian's
// libsecret-1-dev), with the GLib, GObject and GIO calls its use needs.
#include <libsecret/secret.h>
#include <gio/gio.h>

// A table of attributes (names and values are strings, copied into the table and freed with it).
static inline GHashTable *cmsal_secret_attributes_new(void) {
    return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

static inline void cmsal_secret_attributes_set(GHashTable *attributes, const char *name, const char *value) {
    g_hash_table_replace(attributes, g_strdup(name), g_strdup(value));
}

// A schema named `name` whose attributes are the names in `attributes`, each a string (the
// schema copies the names). GINT_TO_POINTER is a macro, which Swift cannot call.
static inline SecretSchema *cmsal_secret_schema_new(const char *name, GHashTable *attributes) {
    GHashTable *types = g_hash_table_new(g_str_hash, g_str_equal);
    GHashTableIter iter;
    gpointer attribute = NULL;
    g_hash_table_iter_init(&iter, attributes);
    while (g_hash_table_iter_next(&iter, &attribute, NULL)) {
        g_hash_table_insert(types, attribute, GINT_TO_POINTER(SECRET_SCHEMA_ATTRIBUTE_STRING));
    }
    SecretSchema *schema = secret_schema_newv(name, SECRET_SCHEMA_NONE, types);
    g_hash_table_unref(types);
    return schema;
}

// Frees a list of items with the reference each holds.
static inline void cmsal_secret_item_list_free(GList *items) {
    g_list_free_full(items, g_object_unref);
}

// The bus name libsecret talks to: $SECRET_SERVICE_BUS_NAME, or org.freedesktop.secrets.
static inline const char *cmsal_secret_bus_name(void) {
    const char *name = g_getenv("SECRET_SERVICE_BUS_NAME");
    return name != NULL ? name : "org.freedesktop.secrets";
}

// Whether something on `bus` owns `name` (1), or not (0); -1 with `error` set when the bus did
// not answer. g_variant_new and g_variant_get are variadic, which Swift cannot call.
static inline int cmsal_dbus_name_has_owner(GDBusConnection *bus, const char *name, GCancellable *cancellable,
                                            GError **error) {
    GVariant *reply = g_dbus_connection_call_sync(
        bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
        g_variant_new("(s)", name), G_VARIANT_TYPE("(b)"), G_DBUS_CALL_FLAGS_NONE, -1, cancellable, error);
    if (reply == NULL) return -1;
    gboolean owned = FALSE;
    g_variant_get(reply, "(b)", &owned);
    g_variant_unref(reply);
    return owned ? 1 : 0;
}

// Whether `bus` can start `name` on demand (a D-Bus service file names it): 1, 0, or -1 with
// `error` set.
static inline int cmsal_dbus_name_is_activatable(GDBusConnection *bus, const char *name,
                                                 GCancellable *cancellable, GError **error) {
    GVariant *reply = g_dbus_connection_call_sync(
        bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListActivatableNames",
        NULL, G_VARIANT_TYPE("(as)"), G_DBUS_CALL_FLAGS_NONE, -1, cancellable, error);
    if (reply == NULL) return -1;
    GVariantIter *names = NULL;
    const char *each = NULL;
    int found = 0;
    g_variant_get(reply, "(as)", &names);
    while (!found && g_variant_iter_next(names, "&s", &each)) {
        if (g_strcmp0(each, name) == 0) found = 1;
    }
    g_variant_iter_free(names);
    g_variant_unref(reply);
    return found;
}
