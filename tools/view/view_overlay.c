/*
 * view_overlay.c: layer 6 of the picture (see view_draw.c): text in the
 * built-in bitmap font (view_font.c), the overlay box at the top (daemon,
 * tick, rate, agents, the selected agent, the trace, a message), the help
 * or its hint at the bottom, and the "waiting for daemon" screen.
 */
#include "config.h"

#include "view_draw_int.h"
#include "view_font.h"
#include "view_replay.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LINE 512 /* longest overlay line, bytes */

SDL_Texture *
view_font_texture(SDL_Renderer *r)
{
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(
        0, VIEW_FONT_W * VIEW_FONT_COUNT, VIEW_FONT_H, 32,
        SDL_PIXELFORMAT_ARGB8888);
    if (s == NULL)
        return NULL;
    for (int c = 0; c < VIEW_FONT_COUNT; c++)
        for (int y = 0; y < VIEW_FONT_H; y++) {
            uint32_t *row =
                (uint32_t *)(void *)((uint8_t *)s->pixels + y * s->pitch);
            for (int x = 0; x < VIEW_FONT_W; x++)
                row[c * VIEW_FONT_W + x] =
                    view_font_glyphs[c][y] & (0x80 >> x) ? 0xffffffffu : 0;
        }
    SDL_Texture *t = SDL_CreateTextureFromSurface(r, s);
    SDL_FreeSurface(s);
    if (t != NULL)
        SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND);
    return t;
}

/* ---- Text ------------------------------------------------------------------
 */

static void
text(view_draw *d, float x, float y, int scale, SDL_Color c, const char *str)
{
    SDL_SetTextureColorMod(d->font, c.r, c.g, c.b);
    SDL_SetTextureAlphaMod(d->font, c.a);
    for (; *str != '\0'; str++, x += VIEW_FONT_W * scale) {
        int ch = (unsigned char)*str;
        if (ch <= VIEW_FONT_FIRST || ch >= VIEW_FONT_FIRST + VIEW_FONT_COUNT)
            continue;
        SDL_Rect src = {(ch - VIEW_FONT_FIRST) * VIEW_FONT_W, 0, VIEW_FONT_W,
                        VIEW_FONT_H};
        SDL_FRect dst = {x, y, (float)(VIEW_FONT_W * scale),
                         (float)(VIEW_FONT_H * scale)};
        SDL_RenderCopyF(d->r, d->font, &src, &dst);
    }
}

/* Lines of text on a translucent box at (x, y); y < 0 counts from the
 * bottom of the window. */
static void
text_box(view_draw *d, const view_state *s, float x, float y, int nlines,
         char lines[][LINE])
{
    size_t wmax = 0;
    for (int i = 0; i < nlines; i++)
        if (strlen(lines[i]) > wmax)
            wmax = strlen(lines[i]);
    if (wmax == 0)
        return;
    float lh = VIEW_FONT_H + 2;
    SDL_FRect box = {x, y, (float)(wmax * VIEW_FONT_W) + 12,
                     lh * (float)nlines + 8};
    if (y < 0)
        box.y = (float)s->win_h + y - box.h;
    SDL_SetRenderDrawBlendMode(d->r, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(d->r, 0x10, 0x12, 0x16, 0xc8);
    SDL_RenderFillRectF(d->r, &box);
    for (int i = 0; i < nlines; i++)
        text(d, box.x + 6, box.y + 4 + lh * (float)i, 1,
             (SDL_Color){0xf0, 0xf0, 0xf0, 0xff}, lines[i]);
}

void
view_draw_overlay(view_draw *d, const view_state *s, long sel)
{
    const view_conn *c = &s->conn;
    char l[6][LINE], fps[32] = "";
    int n = 0;
    if (s->fps > 0) /* none yet in the first second, or in a screenshot */
        snprintf(fps, sizeof fps, " | %.0f fps", s->fps);
    if (s->replay != NULL)
        view_replay_status(s, l[n++], sizeof l[0]);
    else
        snprintf(l[n++], sizeof l[0],
                 "%s pid %ld | tick %llu | %.1f ticks/s | %zu agents%s%s%s",
                 c->shown, c->pid, (unsigned long long)c->tick,
                 c->stats.ticks_per_s, c->nagents, fps,
                 s->frozen ? " | frozen" : "",
                 c->w != NULL && !c->can_edit ? " | read-only" : "");
    if (sel >= 0) {
        const gc_world_agent *a = &c->agents[sel];
        snprintf(l[n++], sizeof l[0],
                 "agent %u: %s at (%.2f, %.2f) heading %.0f deg, goal (%d, "
                 "%d), %u waypoints left",
                 a->id, gc_agent_state_name(a->state), (double)a->x,
                 (double)a->y, (double)(a->heading * 180.0f / (float)M_PI),
                 (int)a->goal_x, (int)a->goal_y, a->path_len);
    }
    if (s->show_trace) {
        const gc_world_trace_info *ti = &c->trace_info;
        if (s->sel == GC_WORLD_NO_AGENT)
            snprintf(l[n++], sizeof l[0], "trace: click an agent");
        else if (view_trace_visible(s))
            snprintf(l[n++], sizeof l[0],
                     "trace of agent %u: %zu events at tick %llu%s", ti->agent,
                     ti->count, (unsigned long long)ti->tick,
                     ti->truncated ? " (truncated)" : "");
        else
            snprintf(l[n++], sizeof l[0],
                     "trace: waiting for agent %u to search%s", s->sel,
                     c->w != NULL && !c->can_edit
                         ? " (read-only: cannot ask the daemon)"
                         : "");
    }
    if (s->msg[0] != '\0' && s->now < s->msg_until)
        snprintf(l[n++], sizeof l[0], "%s", s->msg);
    if (s->show_overlay)
        text_box(d, s, 4, 4, n, l);

    /* Above a replay's slider. */
    float bottom = s->replay != NULL ? -4 - VIEW_REPLAY_BAR_H : -4;
    if (s->show_help) {
        static const char *help[] = {
            "wheel        zoom around the pointer",
            "drag         pan",
            "click        select the agent under the pointer",
            "shift-drag   paint obstacles",
            "ctrl-drag    paint walkable cells",
            "a            spawn an agent at the pointer",
            "right click  send the selected agent there",
            "p            every agent's path",
            "t            trace of the selected agent's last search",
            "v            every agent's velocity (where it goes in 1 s)",
            "space        freeze the picture",
            "f            fit the map in the window",
            "o            overlay on/off",
            "s            save the window as gridcrowd-view-TICK.bmp",
            "h            this help",
            "q, Escape    quit",
        };
        enum { N = sizeof help / sizeof help[0], NMAX = 24 };
        /* A replay has its own keys (view_replay.c). */
        size_t nh = N;
        const char *const *h = s->replay != NULL ? view_replay_help(&nh) : help;
        nh = nh > NMAX ? NMAX : nh;
        char hl[NMAX][LINE];
        for (size_t i = 0; i < nh; i++)
            snprintf(hl[i], sizeof hl[0], "%s", h[i]);
        text_box(d, s, 4, bottom, (int)nh, hl);
    } else if (s->show_overlay) {
        char hl[1][LINE] = {"h: help"};
        text_box(d, s, 4, bottom, 1, hl);
    }
}

void
view_draw_waiting(view_draw *d, const view_state *s)
{
    SDL_SetRenderDrawBlendMode(d->r, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(d->r, 0, 0, 0, 0xa0);
    SDL_RenderFillRect(d->r, NULL);
    char big[LINE], small[LINE];
    snprintf(big, sizeof big, "waiting for daemon %s", s->conn.shown);
    snprintf(small, sizeof small,
             "the picture comes back when it starts again; q quits");
    int scale = s->win_w >= (int)strlen(big) * VIEW_FONT_W * 2 + 20 ? 2 : 1;
    float bw = (float)(strlen(big) * VIEW_FONT_W * (size_t)scale);
    float sw = (float)(strlen(small) * VIEW_FONT_W);
    float y = (float)s->win_h / 2 - VIEW_FONT_H * scale;
    text(d, ((float)s->win_w - bw) / 2, y, scale,
         (SDL_Color){0xff, 0xff, 0xff, 0xff}, big);
    text(d, ((float)s->win_w - sw) / 2, y + VIEW_FONT_H * scale + 8, 1,
         (SDL_Color){0xd0, 0xd0, 0xd0, 0xff}, small);
}
