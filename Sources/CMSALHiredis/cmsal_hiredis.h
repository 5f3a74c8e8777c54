// The Redis protocol through hiredis (Debian's libhiredis-dev, 0.14.1 on Debian 12): command
// formatting (redisFormatCommandArgv) and the reply reader. Sockets and TLS are ours
// (MSALRedisCacheNative), so no hiredis connection object is ever made.
#ifndef CMSAL_HIREDIS_H
#define CMSAL_HIREDIS_H

#include <hiredis.h>
#include <stdlib.h>

/// redisReaderGetError is a macro: the reader's error text after REDIS_ERR.
static inline const char *cmsal_hiredis_reader_error(redisReader *reader) {
    return reader->errstr;
}

/// The reader's error code (REDIS_ERR_PROTOCOL, REDIS_ERR_OOM...), 0 when none.
static inline int cmsal_hiredis_reader_error_code(redisReader *reader) {
    return reader->err;
}

/// Sets how much unused buffer the reader keeps between replies (REDIS_READER_MAX_BUF).
static inline void cmsal_hiredis_reader_set_maxbuf(redisReader *reader, size_t maxbuf) {
    reader->maxbuf = maxbuf;
}

/// Frees a buffer hiredis allocated with malloc (redisFormatCommandArgv's command).
static inline void cmsal_hiredis_free_command(char *command) {
    redisFreeCommand(command);
}

#endif
