/*
 * view_canvas.c: where the viewer draws, for the live viewer
 * (gridcrowd-view.c) and the replay (view_replay.c) alike: the size of the
 * picture and the first camera (view_initial), a window or an off-screen
 * surface with its renderer and drawer (view_canvas), a screenshot saved
 * from it, and a frame shown in the window (with key s's copy).  Each
 * caller keeps its own loop; what is here is what both must do the same
 * way, so that a replay's picture is the live one's to the pixel.
 *
 * Every failure prints one line (prog_say: what, then SDL's message) and
 * gives VIEW_EXIT_SDL; view_canvas_free takes a canvas in any state an
 * open left it in.
 */
#include "config.h"

#include "view.h"

#include "prog.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "gridcrowd-view"

int
view_sdl_fail(const char *what)
{
    prog_say(what, "%s", SDL_GetError());
    return VIEW_EXIT_SDL;
}

void
view_initial(view_state *s, bool screenshot, int *w, int *h)
{
    long bw = VIEW_BOX_W, bh = VIEW_BOX_H;
    SDL_Rect u;
    if (!screenshot && SDL_GetDisplayUsableBounds(0, &u) == 0 && u.w > 200 &&
        u.h > 200) {
        /* Leave room for the window's frame. */
        bw = u.w - 32 < bw ? u.w - 32 : bw;
        bh = u.h - 64 < bh ? u.h - 64 : bh;
    }
    long mw = s->conn.width, mh = s->conn.height;
    long scale = s->opt.scale;
    if (scale == 0) {
        scale = bw / mw < bh / mh ? bw / mw : bh / mh;
        scale = scale < 1 ? 1 : scale;
    }
    long ww = mw * scale, wh = mh * scale;
    /* A screenshot is exactly the map (tests rely on cell (x, y) at
     * x * scale). */
    if (!screenshot) {
        ww = ww > bw ? bw : ww < 320 ? 320 : ww;
        wh = wh > bh ? bh : wh < 240 ? 240 : wh;
    }
    *w = s->win_w = (int)ww;
    *h = s->win_h = (int)wh;
    if (s->opt.scale == 0) {
        view_fit(s);
    } else {
        s->cam.zoom = (double)scale;
        s->cam.ox = floor((double)(ww - mw * scale) / 2);
        s->cam.oy = floor((double)(wh - mh * scale) / 2);
    }
}

int
view_canvas_window(view_canvas *c, int w, int h)
{
    memset(c, 0, sizeof *c);
    /* Under X11, SDL hands a software renderer's frames to the window
     * through a GL texture unless told otherwise.  The software renderer is
     * chosen when there is no hardware GL, and then that GL is software too
     * (llvmpipe, Xvfb): the copy cost more than drawing 10,000 agents.  Plain
     * MIT-SHM is cheaper.  Only X11 has that path (Wayland has no other), and
     * the user's own setting wins. */
    const char *drv = SDL_GetCurrentVideoDriver();
    if (drv != NULL && strcmp(drv, "x11") == 0 &&
        SDL_GetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION) == NULL)
        SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
    c->win =
        SDL_CreateWindow(PROG, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                         w, h, SDL_WINDOW_RESIZABLE);
    if (c->win == NULL)
        return view_sdl_fail("creating the window");
    c->r = SDL_CreateRenderer(c->win, -1, 0);
    c->d = c->r != NULL ? view_draw_new(c->r) : NULL;
    if (c->d == NULL)
        return view_sdl_fail("creating a renderer");
    return VIEW_EXIT_OK;
}

int
view_canvas_offscreen(view_canvas *c, int w, int h)
{
    memset(c, 0, sizeof *c);
    c->surf =
        SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGB888);
    if (c->surf == NULL)
        return view_sdl_fail("creating the screenshot surface");
    c->r = SDL_CreateSoftwareRenderer(c->surf);
    c->d = c->r != NULL ? view_draw_new(c->r) : NULL;
    if (c->d == NULL)
        return view_sdl_fail("creating a software renderer");
    return VIEW_EXIT_OK;
}

/*
 * SDL_SaveBMP to PATH.part, then rename to PATH: a picture appears whole
 * or not at all, so a script that waits for the file (the tests do) never
 * reads one half written.  0, or -1 with SDL's error set.
 */
static int
save_bmp_whole(SDL_Surface *sf, const char *path)
{
    size_t n = strlen(path) + sizeof ".part";
    char *part = malloc(n);
    if (part == NULL)
        return SDL_SetError("out of memory");
    snprintf(part, n, "%s.part", path);
    int rc = SDL_SaveBMP(sf, part);
    if (rc == 0 && rename(part, path) != 0)
        rc = SDL_SetError("%s", strerror(errno));
    if (rc != 0)
        (void)remove(part);
    free(part);
    return rc;
}

int
view_canvas_save(view_canvas *c, const char *path)
{
    int status = VIEW_EXIT_OK;
    SDL_RenderPresent(c->r);
    /* 24-bit BMP: what every reader understands. */
    SDL_Surface *bgr =
        SDL_ConvertSurfaceFormat(c->surf, SDL_PIXELFORMAT_BGR24, 0);
    if (bgr == NULL || save_bmp_whole(bgr, path) != 0)
        status = view_sdl_fail(path);
    SDL_FreeSurface(bgr);
    return status;
}

void
view_canvas_free(view_canvas *c)
{
    view_draw_free(c->d);
    if (c->r != NULL)
        SDL_DestroyRenderer(c->r);
    if (c->win != NULL)
        SDL_DestroyWindow(c->win);
    SDL_FreeSurface(c->surf);
    memset(c, 0, sizeof *c);
}

/* Key s: the window's frame just drawn, as gridcrowd-view-TICK.bmp here. */
static void
save_window(const view_canvas *c, view_state *s)
{
    char name[64];
    snprintf(name, sizeof name, PROG "-%llu.bmp",
             (unsigned long long)s->conn.tick);
    SDL_Surface *sf = SDL_CreateRGBSurfaceWithFormat(0, s->win_w, s->win_h, 24,
                                                     SDL_PIXELFORMAT_BGR24);
    if (sf == NULL ||
        SDL_RenderReadPixels(c->r, NULL, SDL_PIXELFORMAT_BGR24, sf->pixels,
                             sf->pitch) != 0 ||
        save_bmp_whole(sf, name) != 0)
        view_message(s, true, "%s: %s", name, SDL_GetError());
    else
        view_message(s, false, "saved %s", name);
    SDL_FreeSurface(sf);
}

int
view_canvas_show(view_canvas *c, view_state *s)
{
    if (view_draw_frame(c->d, s) != 0)
        return view_sdl_fail("drawing");
    if (s->save_shot) {
        s->save_shot = false;
        save_window(c, s);
    }
    SDL_RenderPresent(c->r);
    return VIEW_EXIT_OK;
}
