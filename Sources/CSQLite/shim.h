#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

// The system's SQLite (Debian/Ubuntu: libsqlite3-dev; macOS: the SDK's libsqlite3).
#include <sqlite3.h>

#endif
