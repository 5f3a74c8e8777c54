// Shims over OpenSSL 3 crypto (digests, random, AEAD, public keys).
//
// Swift cannot import function-like macros, and OSSL_PARAM_BLD keeps pointers to parameter names:
// names must be C string literals with static lifetime, so they are returned from here.
#ifndef CMSAL_CRYPTO_H
#define CMSAL_CRYPTO_H

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#endif
