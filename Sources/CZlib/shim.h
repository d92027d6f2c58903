#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

// The system's zlib (Debian/Ubuntu: zlib1g-dev; macOS: the SDK's libz), for the compressed model
// Apple's Core Data keeps in a store's Z_MODELCACHE table.
#include <zlib.h>

#endif
