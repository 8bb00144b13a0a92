#ifndef E2EECORE_CSODIUM_SHIM_H
#define E2EECORE_CSODIUM_SHIM_H
#include <sodium.h>
#endif
