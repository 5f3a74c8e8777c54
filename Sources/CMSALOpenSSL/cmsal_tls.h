// Shims over OpenSSL 3 TLS and X.509 (used by the loopback HTTPS test server and its test client).
//
// Each shim exists because Swift cannot import what it wraps: function-like macros
// (SSL_CTX_set_min_proto_version, SSL_set_tlsext_host_name, X509V3_set_ctx_nodb), option bits
// built with the SSL_OP_BIT() macro, or a C struct that must live on the C stack (X509V3_CTX).
#ifndef CMSAL_TLS_H
#define CMSAL_TLS_H

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/// SSL_CTX_set_min_proto_version is a macro: TLS 1.2 is the lowest version we speak.
static inline int cmsal_ssl_ctx_set_min_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

/// SSL_OP_IGNORE_UNEXPECTED_EOF and SSL_OP_NO_RENEGOTIATION are SSL_OP_BIT() macros. Ignoring an
/// unexpected EOF makes a peer that closes without close_notify a plain end of stream.
static inline void cmsal_ssl_ctx_set_common_options(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
}

/// SSL_set_tlsext_host_name is a macro: the server name (SNI) a client sends.
static inline int cmsal_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// Adds one X.509 v3 extension given in OpenSSL's configuration syntax ("critical,CA:TRUE").
/// X509V3_CTX must be a C stack object initialised by the X509V3_set_ctx_nodb macro.
static inline int cmsal_x509_add_extension(X509 *cert, X509 *issuer, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *extension = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (extension == NULL) {
        return 0;
    }
    int added = X509_add_ext(cert, extension, -1);
    X509_EXTENSION_free(extension);
    return added;
}

/// MBSTRING_ASC is a macro expression: adds an ASCII entry ("CN", "O") to a distinguished name.
static inline int cmsal_x509_name_add_ascii(X509_NAME *name, const char *field, const char *value) {
    return X509_NAME_add_entry_by_txt(name, field, MBSTRING_ASC, (const unsigned char *)value, -1, -1, 0);
}

#endif
