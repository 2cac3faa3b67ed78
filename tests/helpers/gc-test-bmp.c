/*
 * gc-test-bmp.c: read pixels of a BMP file, for the viewer's shell tests.
 *
 *   gc-test-bmp FILE            prints "WIDTH HEIGHT"
 *   gc-test-bmp FILE X Y ...    prints "RRGGBB" (hex) for each pixel (X, Y),
 *                               (0, 0) the top-left corner, one a line
 *
 * Reads the uncompressed 24- and 32-bit files SDL_SaveBMP writes (BI_RGB, or
 * BI_BITFIELDS with the usual BGRA masks), bottom-up or top-down.
 *
 * Exit codes: 0 printed; 1 the file is unreadable, not such a BMP, or a
 * pixel is outside it (the message says which); 2 usage.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "gc-test-bmp"

static uint32_t
le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

int
main(int argc, char **argv)
{
    if (argc < 2 || argc % 2 != 0) {
        fprintf(stderr, "usage: " PROG " FILE [X Y]...\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        perror(PROG ": opening the file");
        return 1;
    }
    unsigned char h[54];
    if (fread(h, 1, sizeof h, f) != sizeof h || h[0] != 'B' || h[1] != 'M') {
        fprintf(stderr, PROG ": %s: not a BMP file\n", argv[1]);
        fclose(f);
        return 1;
    }
    uint32_t off = le32(h + 10), comp = le32(h + 30);
    int32_t w = (int32_t)le32(h + 18), hh = (int32_t)le32(h + 22);
    unsigned bpp = (unsigned)h[28] | (unsigned)h[29] << 8;
    if (w <= 0 || hh == 0 || (bpp != 24 && bpp != 32) ||
        !(comp == 0 || (comp == 3 && bpp == 32))) {
        fprintf(stderr, PROG ": %s: only uncompressed 24/32-bit BMPs\n",
                argv[1]);
        fclose(f);
        return 1;
    }
    int32_t height = hh < 0 ? -hh : hh;
    if (argc == 2) {
        printf("%d %d\n", (int)w, (int)height);
        fclose(f);
        return 0;
    }
    size_t stride = ((size_t)w * bpp / 8 + 3) & ~(size_t)3;
    int status = 0;
    for (int i = 2; i + 1 < argc; i += 2) {
        long x = strtol(argv[i], NULL, 10), y = strtol(argv[i + 1], NULL, 10);
        if (x < 0 || y < 0 || x >= w || y >= height) {
            fprintf(stderr, PROG ": %s: pixel (%ld, %ld) is outside %dx%d\n",
                    argv[1], x, y, (int)w, (int)height);
            status = 1;
            break;
        }
        long row = hh > 0 ? height - 1 - y : y; /* positive: bottom-up */
        unsigned char px[4];
        if (fseek(f, (long)(off + (size_t)row * stride + (size_t)x * bpp / 8),
                  SEEK_SET) != 0 ||
            fread(px, 1, 3, f) != 3) {
            fprintf(stderr, PROG ": %s: truncated\n", argv[1]);
            status = 1;
            break;
        }
        printf("%02x%02x%02x\n", px[2], px[1], px[0]);
    }
    fclose(f);
    return status;
}
