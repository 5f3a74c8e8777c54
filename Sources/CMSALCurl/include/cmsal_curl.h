// libcurl for Swift, loaded when the first request needs it.
//
// The library is not a link-time dependency: cmsal_curl_load() opens libcurl.so.4 with dlopen the
// first time a transfer is set up, so a process that only reads its token cache (`msal token` with
// a cached token) never pays for mapping and relocating libcurl and its thirty libraries. Every
// libcurl call of the package goes through the functions below, which call the loaded library.
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, and Swift cannot call C
// variadic functions: each setopt/getinfo function below fixes one argument type.
//
// <curl/curl.h> is included for its types and constants only; nothing here links its functions.
#ifndef CMSAL_CURL_H
#define CMSAL_CURL_H

#include <curl/curl.h>

typedef size_t (*cmsal_curl_data_callback)(char *data, size_t size, size_t count, void *userdata);
typedef int (*cmsal_curl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                            curl_off_t ultotal, curl_off_t ulnow);

/// Loads libcurl.so.4 and runs curl_global_init, once per process (later calls return the first
/// outcome). Returns 1 when libcurl is ready; 0 otherwise, with a static message in *reason.
/// Every other function below may be called only after a call that returned 1.
int cmsal_curl_load(const char **reason);

CURL *cmsal_easy_init(void);
void cmsal_easy_cleanup(CURL *handle);
void cmsal_easy_reset(CURL *handle);
CURLcode cmsal_easy_perform(CURL *handle);
const char *cmsal_easy_strerror(CURLcode code);

CURLcode cmsal_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode cmsal_easy_setopt_ptr(CURL *handle, CURLoption option, const void *value);
CURLcode cmsal_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode cmsal_easy_setopt_data_callback(CURL *handle, CURLoption option,
                                         cmsal_curl_data_callback callback);
CURLcode cmsal_easy_setopt_xferinfo_callback(CURL *handle, cmsal_curl_xferinfo_callback callback);
CURLcode cmsal_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode cmsal_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode cmsal_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);
CURLcode cmsal_easy_getinfo_ptr(CURL *handle, CURLINFO info, void **value);

struct curl_slist *cmsal_slist_append(struct curl_slist *list, const char *line);
void cmsal_slist_free_all(struct curl_slist *list);

CURLM *cmsal_multi_init(void);
CURLMcode cmsal_multi_cleanup(CURLM *multi);
CURLMcode cmsal_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode cmsal_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode cmsal_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode cmsal_multi_perform(CURLM *multi, int *running);
CURLMcode cmsal_multi_poll(CURLM *multi, int timeout_ms);
CURLMcode cmsal_multi_wakeup(CURLM *multi);
CURLMsg *cmsal_multi_info_read(CURLM *multi, int *remaining);

/// CURL_ERROR_SIZE as a function (Swift does not import every macro).
static inline size_t cmsal_curl_error_size(void) { return CURL_ERROR_SIZE; }

/// The libcurl version string, e.g. "libcurl/7.88.1 OpenSSL/3.0.x ..." (loads libcurl), or NULL
/// when it cannot be loaded.
const char *cmsal_curl_version(void);

#endif
