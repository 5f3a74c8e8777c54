// libcurl, opened on first use: see include/cmsal_curl.h.
#include "cmsal_curl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// The libcurl functions the package calls, as the loaded library has them.
static struct {
    CURLcode (*global_init)(long flags);
    char *(*version)(void);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_failure[512];

// Resolves one symbol into its slot; records the first missing one.
#define CMSAL_RESOLVE(slot, name)                                                                  \
    do {                                                                                           \
        void *symbol = dlsym(library, name);                                                       \
        if (symbol == NULL) {                                                                      \
            snprintf(load_failure, sizeof load_failure, "libcurl.so.4 has no %s", name);           \
            return;                                                                                \
        }                                                                                          \
        memcpy(&curl.slot, &symbol, sizeof symbol);                                                \
    } while (0)

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(load_failure, sizeof load_failure, "libcurl.so.4 could not be loaded: %s",
                 why != NULL ? why : "no reason given");
        return;
    }
    CMSAL_RESOLVE(global_init, "curl_global_init");
    CMSAL_RESOLVE(version, "curl_version");
    CMSAL_RESOLVE(easy_init, "curl_easy_init");
    CMSAL_RESOLVE(easy_cleanup, "curl_easy_cleanup");
    CMSAL_RESOLVE(easy_reset, "curl_easy_reset");
    CMSAL_RESOLVE(easy_perform, "curl_easy_perform");
    CMSAL_RESOLVE(easy_strerror, "curl_easy_strerror");
    CMSAL_RESOLVE(easy_setopt, "curl_easy_setopt");
    CMSAL_RESOLVE(easy_getinfo, "curl_easy_getinfo");
    CMSAL_RESOLVE(slist_append, "curl_slist_append");
    CMSAL_RESOLVE(slist_free_all, "curl_slist_free_all");
    CMSAL_RESOLVE(multi_init, "curl_multi_init");
    CMSAL_RESOLVE(multi_cleanup, "curl_multi_cleanup");
    CMSAL_RESOLVE(multi_setopt, "curl_multi_setopt");
    CMSAL_RESOLVE(multi_add_handle, "curl_multi_add_handle");
    CMSAL_RESOLVE(multi_remove_handle, "curl_multi_remove_handle");
    CMSAL_RESOLVE(multi_perform, "curl_multi_perform");
    CMSAL_RESOLVE(multi_poll, "curl_multi_poll");
    CMSAL_RESOLVE(multi_wakeup, "curl_multi_wakeup");
    CMSAL_RESOLVE(multi_info_read, "curl_multi_info_read");
    CURLcode code = curl.global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(load_failure, sizeof load_failure, "curl_global_init failed: %s",
                 curl.easy_strerror(code));
        return;
    }
    loaded = 1;
}

int cmsal_curl_load(const char **reason) {
    pthread_once(&load_once, load);
    if (!loaded && reason != NULL) *reason = load_failure;
    return loaded;
}

CURL *cmsal_easy_init(void) { return curl.easy_init(); }
void cmsal_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
void cmsal_easy_reset(CURL *handle) { curl.easy_reset(handle); }
CURLcode cmsal_easy_perform(CURL *handle) { return curl.easy_perform(handle); }
const char *cmsal_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }

CURLcode cmsal_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode cmsal_easy_setopt_ptr(CURL *handle, CURLoption option, const void *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode cmsal_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode cmsal_easy_setopt_data_callback(CURL *handle, CURLoption option,
                                         cmsal_curl_data_callback callback) {
    return curl.easy_setopt(handle, option, callback);
}

CURLcode cmsal_easy_setopt_xferinfo_callback(CURL *handle, cmsal_curl_xferinfo_callback callback) {
    return curl.easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

CURLcode cmsal_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl.easy_getinfo(handle, info, value);
}

CURLcode cmsal_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl.easy_getinfo(handle, info, value);
}

CURLcode cmsal_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl.easy_getinfo(handle, info, value);
}

CURLcode cmsal_easy_getinfo_ptr(CURL *handle, CURLINFO info, void **value) {
    return curl.easy_getinfo(handle, info, value);
}

struct curl_slist *cmsal_slist_append(struct curl_slist *list, const char *line) {
    return curl.slist_append(list, line);
}

void cmsal_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLM *cmsal_multi_init(void) { return curl.multi_init(); }
CURLMcode cmsal_multi_cleanup(CURLM *multi) { return curl.multi_cleanup(multi); }

CURLMcode cmsal_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl.multi_setopt(multi, option, value);
}

CURLMcode cmsal_multi_add_handle(CURLM *multi, CURL *handle) {
    return curl.multi_add_handle(multi, handle);
}

CURLMcode cmsal_multi_remove_handle(CURLM *multi, CURL *handle) {
    return curl.multi_remove_handle(multi, handle);
}

CURLMcode cmsal_multi_perform(CURLM *multi, int *running) {
    return curl.multi_perform(multi, running);
}

CURLMcode cmsal_multi_poll(CURLM *multi, int timeout_ms) {
    return curl.multi_poll(multi, NULL, 0, timeout_ms, NULL);
}

CURLMcode cmsal_multi_wakeup(CURLM *multi) { return curl.multi_wakeup(multi); }

CURLMsg *cmsal_multi_info_read(CURLM *multi, int *remaining) {
    return curl.multi_info_read(multi, remaining);
}

const char *cmsal_curl_version(void) {
    if (!cmsal_curl_load(NULL)) return NULL;
    return curl.version();
}
