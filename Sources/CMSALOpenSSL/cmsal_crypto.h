// Shims over OpenSSL 3 crypto (digests, random, AEAD, public keys).
//
// Swift cannot import function-like macros, and OSSL_PARAM_BLD keeps pointers to parameter names:
// names must be C string literals with static lifetime, so they are returned from here.
#ifndef CMSAL_CRYPTO_H
#define CMSAL_CRYPTO_H

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

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

// MARK: Names with static lifetime.
// OSSL_PARAM_BLD and EVP_PKEY_CTX keep the `const char *` they are given; a Swift String bridged
// to a C string is freed when the call returns, so every such name comes from a literal here.

/// The key-management name of RSA keys, for EVP_PKEY_CTX_new_from_name (the context keeps it).
static inline const char *cmsal_keytype_rsa(void) { return "RSA"; }

/// The key-management name of EC keys, for EVP_PKEY_CTX_new_from_name (the context keeps it).
static inline const char *cmsal_keytype_ec(void) { return "EC"; }

/// OSSL_PKEY_PARAM_RSA_N: the RSA modulus.
static inline const char *cmsal_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }

/// OSSL_PKEY_PARAM_RSA_E: the RSA public exponent.
static inline const char *cmsal_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }

/// OSSL_PKEY_PARAM_GROUP_NAME: the EC curve name.
static inline const char *cmsal_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }

/// OSSL_PKEY_PARAM_PUB_KEY: the encoded EC public point.
static inline const char *cmsal_param_pub_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }

/// OSSL_PKEY_PARAM_EC_PUB_X: the affine x coordinate of an EC public key.
static inline const char *cmsal_param_ec_pub_x(void) { return OSSL_PKEY_PARAM_EC_PUB_X; }

/// OSSL_PKEY_PARAM_EC_PUB_Y: the affine y coordinate of an EC public key.
static inline const char *cmsal_param_ec_pub_y(void) { return OSSL_PKEY_PARAM_EC_PUB_Y; }

/// The OpenSSL name of NIST P-256, used as an OSSL_PARAM value (the builder keeps the pointer).
static inline const char *cmsal_curve_p256(void) { return "prime256v1"; }

// MARK: Macros Swift cannot import.

/// EVP_PKEY_PUBLIC_KEY is an expression macro (a selection of key parts for EVP_PKEY_fromdata).
static inline int cmsal_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }

/// EVP_CTRL_GCM_GET_TAG aliases another macro.
static inline int cmsal_ctrl_gcm_get_tag(void) { return EVP_CTRL_GCM_GET_TAG; }

/// EVP_CTRL_GCM_SET_TAG aliases another macro.
static inline int cmsal_ctrl_gcm_set_tag(void) { return EVP_CTRL_GCM_SET_TAG; }

/// EVP_CTRL_GCM_SET_IVLEN aliases another macro.
static inline int cmsal_ctrl_gcm_set_ivlen(void) { return EVP_CTRL_GCM_SET_IVLEN; }

/// BN_num_bytes is a macro.
static inline int cmsal_bn_num_bytes(const BIGNUM *bn) { return BN_num_bytes(bn); }

#endif
