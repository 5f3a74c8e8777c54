// Thin, typed shims over libcurl for Swift.
//
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, and Swift cannot call C
// variadic functions. Each shim below fixes one argument type and forwards unchanged.
#ifndef CMSAL_CURL_H
#define CMSAL_CURL_H

#include <curl/curl.h>

typedef size_t (*cmsal_curl_data_callback)(char *data, size_t size, size_t count, void *userdata);
typedef int (*cmsal_curl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                            curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode cmsal_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cmsal_easy_setopt_ptr(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cmsal_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cmsal_easy_setopt_data_callback(CURL *handle, CURLoption option,
                                                       cmsal_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode cmsal_easy_setopt_xferinfo_callback(CURL *handle,
                                                           cmsal_curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline CURLcode cmsal_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode cmsal_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode cmsal_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode cmsal_easy_getinfo_ptr(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode cmsal_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

/// CURL_ERROR_SIZE as a function (Swift does not import every macro).
static inline size_t cmsal_curl_error_size(void) { return CURL_ERROR_SIZE; }

/// CURL_GLOBAL_DEFAULT as a function.
static inline long cmsal_curl_global_default(void) { return CURL_GLOBAL_DEFAULT; }

/// The libcurl version string, e.g. "libcurl/7.88.1 OpenSSL/3.0.x ...".
static inline const char *cmsal_curl_version(void) { return curl_version(); }

#endif
