/*
 * version.c: the version the library was built as.
 *
 * The values come from the generated gridcrowd/version.h as it was when the
 * library was compiled, so a program that compares them with the macros it
 * was compiled with learns whether it runs with the library it was built
 * against.
 */
#include "config.h"

#include <gridcrowd/version.h>

const char *
gc_version(void)
{
    return GC_VERSION_STRING;
}

unsigned
gc_version_number(void)
{
    return GC_VERSION_NUMBER;
}
