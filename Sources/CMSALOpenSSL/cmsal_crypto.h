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
#include <openssl/pem.h>

/// A new RSA key pair (EVP_RSA_gen is a macro over the variadic EVP_PKEY_Q_keygen).
static inline EVP_PKEY *cmsal_rsa_keygen(unsigned int bits) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);
}

/// A new EC key pair on P-256 (prime256v1).
static inline EVP_PKEY *cmsal_ec_p256_keygen(void) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}

/// BIO_get_mem_data is a macro.
static inline long cmsal_bio_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

#endif
