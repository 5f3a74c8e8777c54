// Shims over OpenSSL 3 TLS and X.509 (used by the loopback HTTPS test server).
#ifndef CMSAL_TLS_H
#define CMSAL_TLS_H

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#endif
