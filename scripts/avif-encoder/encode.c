// One still AV1 frame of a PPM picture, encoded as pipeline/src/avif.rs encodes it (8-bit YCbCr 4:4:4,
// full-range BT.601, all-intra, constant quality, tune SSIM, post-processing skipped) and decoded again, for
// speed-features.sh. Prints a line per cq-level: cq bytes SSIM encoder-CPU-ms, the SSIM of the decoded
// RGB against the picture as scikit-image computes it (7×7 window, sample covariance, mean of R, G, B).
// AOM_EXTRA="name=value,..." passes options through aom_codec_set_option (aomenc's names).
//
//   encode PICTURE.ppm CPU_USED THREADS CQ...
//   encode --ivf PICTURE.ppm FILE.ivf       # another encoder's frame: "bytes SSIM" (svt_av1.py)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include "aom/aom_encoder.h"
#include "aom/aom_decoder.h"
#include "aom/aomcx.h"
#include "aom/aomdx.h"

static unsigned char *read_ppm(const char *path, int *w, int *h) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  int maxv;
  if (fscanf(f, "P6 %d %d %d", w, h, &maxv) != 3) return NULL;
  fgetc(f);
  unsigned char *p = malloc((size_t)*w * *h * 3);
  if (fread(p, 3, (size_t)*w * *h, f) != (size_t)*w * *h) return NULL;
  fclose(f);
  return p;
}

static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int clamp255(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

// skimage structural_similarity defaults: 7x7 uniform window, sample covariance, mean over the valid area
static double ssim_plane(const double *a, const double *b, int w, int h) {
  const int r = 3, n = 49;
  const double C1 = (0.01 * 255) * (0.01 * 255), C2 = (0.03 * 255) * (0.03 * 255);
  const double norm = (double)n / (n - 1);
  double sum = 0;
  long cnt = 0;
  for (int y = r; y < h - r; y++)
    for (int x = r; x < w - r; x++) {
      double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
      for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++) {
          double va = a[(y + dy) * w + x + dx], vb = b[(y + dy) * w + x + dx];
          sa += va; sb += vb; saa += va * va; sbb += vb * vb; sab += va * vb;
        }
      double ma = sa / n, mb = sb / n;
      double vaa = (saa / n - ma * ma) * norm, vbb = (sbb / n - mb * mb) * norm, vab = (sab / n - ma * mb) * norm;
      sum += ((2 * ma * mb + C1) * (2 * vab + C2)) / ((ma * ma + mb * mb + C1) * (vaa + vbb + C2));
      cnt++;
    }
  return sum / cnt;
}

// Decodes one AV1 frame and returns its SSIM against `ref` (R, G, B planes); chroma of a 4:2:0 frame is
// upsampled bilinearly from centred samples, as libavif does. Returns -1 when it does not decode to w×h.
static double decoded_ssim(const unsigned char *av1, size_t size, double *const ref[3], int w, int h) {
  aom_codec_ctx_t dec;
  aom_codec_dec_init(&dec, aom_codec_av1_dx(), NULL, 0);
  double result = -1;
  aom_codec_iter_t it = NULL;
  aom_image_t *d = aom_codec_decode(&dec, av1, size, NULL) ? NULL : aom_codec_get_frame(&dec, &it);
  if (d && (int)d->d_w == w && (int)d->d_h == h) {
    const int sx = d->x_chroma_shift, sy = d->y_chroma_shift;
    const int cw = (w + sx) >> sx, ch = (h + sy) >> sy;
    size_t np = (size_t)w * h;
    double *dp[3];
    for (int c = 0; c < 3; c++) dp[c] = malloc(np * sizeof(double));
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        double chroma[2];
        const double fx = sx ? (x - 0.5) / 2 : x, fy = sy ? (y - 0.5) / 2 : y;
        const int x0 = (int)floor(fx), y0 = (int)floor(fy);
        const double ax = fx - x0, ay = fy - y0;
        for (int p = 1; p <= 2; p++) {
          double sum = 0;
          for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++) {
              int xx = x0 + dx, yy = y0 + dy;
              xx = xx < 0 ? 0 : xx >= cw ? cw - 1 : xx;
              yy = yy < 0 ? 0 : yy >= ch ? ch - 1 : yy;
              sum += (dx ? ax : 1 - ax) * (dy ? ay : 1 - ay) * d->planes[p][yy * d->stride[p] + xx];
            }
          chroma[p - 1] = sum - 128.0;
        }
        const double Y = d->planes[0][y * d->stride[0] + x], U = chroma[0], V = chroma[1];
        const size_t i = (size_t)y * w + x;
        dp[0][i] = clamp255((int)lround(Y + 1.402 * V));
        dp[1][i] = clamp255((int)lround(Y - 0.344136 * U - 0.714136 * V));
        dp[2][i] = clamp255((int)lround(Y + 1.772 * U));
      }
    result = 0;
    for (int c = 0; c < 3; c++) result += ssim_plane(ref[c], dp[c], w, h) / 3;
    for (int c = 0; c < 3; c++) free(dp[c]);
  }
  aom_codec_destroy(&dec);
  return result;
}

// `encode --ivf PICTURE.ppm FILE.ivf`: the first frame of an IVF file (another encoder's), as "bytes SSIM".
static int compare_ivf(const char *path, double *const ref[3], int w, int h) {
  FILE *f = fopen(path, "rb");
  unsigned char header[32], frame[12];
  if (!f || fread(header, 1, 32, f) != 32 || fseek(f, header[6] | header[7] << 8, SEEK_SET) ||
      fread(frame, 1, 12, f) != 12) {
    fprintf(stderr, "%s: not an IVF file\n", path);
    return 1;
  }
  size_t size = frame[0] | frame[1] << 8 | frame[2] << 16 | (size_t)frame[3] << 24;
  unsigned char *av1 = malloc(size);
  if (fread(av1, 1, size, f) != size) return 1;
  fclose(f);
  double ssim = decoded_ssim(av1, size, ref, w, h);
  if (ssim < 0) { fprintf(stderr, "%s: does not decode to %dx%d\n", path, w, h); return 1; }
  printf("%zu %.5f\n", size, ssim);
  return 0;
}

int main(int argc, char **argv) {
  const int ivf = argc == 4 && !strcmp(argv[1], "--ivf");
  if (argc < 5 && !ivf) return 2;
  if (ivf) argv++;
  int w, h;
  unsigned char *rgb = read_ppm(argv[1], &w, &h);
  if (!rgb) { fprintf(stderr, "bad ppm\n"); return 1; }
  size_t np = (size_t)w * h;
  double *ref[3];
  for (int c = 0; c < 3; c++) {
    ref[c] = malloc(np * sizeof(double));
    for (size_t i = 0; i < np; i++) ref[c][i] = rgb[i * 3 + c];
  }
  if (ivf) return compare_ivf(argv[2], ref, w, h);
  int speed = atoi(argv[2]), threads = atoi(argv[3]);
  for (int ai = 4; ai < argc; ai++) {
    int cq = atoi(argv[ai]);
    aom_codec_iface_t *iface = aom_codec_av1_cx();
    aom_codec_enc_cfg_t cfg;
    aom_codec_enc_config_default(iface, &cfg, AOM_USAGE_ALL_INTRA);
    cfg.g_w = w; cfg.g_h = h; cfg.g_threads = threads; cfg.g_profile = 1; cfg.monochrome = 0;
    cfg.g_bit_depth = AOM_BITS_8; cfg.g_input_bit_depth = 8; cfg.rc_end_usage = AOM_Q;
    cfg.g_limit = 1; cfg.g_lag_in_frames = 0; cfg.kf_mode = AOM_KF_DISABLED; cfg.kf_max_dist = 0;
    double t0 = cpu_ms();
    aom_codec_ctx_t enc;
    if (aom_codec_enc_init(&enc, iface, &cfg, 0)) { fprintf(stderr, "init\n"); return 1; }
    aom_codec_control(&enc, AOME_SET_CPUUSED, speed);
    aom_codec_control(&enc, AOME_SET_CQ_LEVEL, cq);
    aom_codec_control(&enc, AOME_SET_TUNING, AOM_TUNE_SSIM);
    aom_codec_control(&enc, AV1E_SET_COLOR_RANGE, 1);
    aom_codec_control(&enc, AV1E_SET_SKIP_POSTPROC_FILTERING, 1);
    const char *extra = getenv("AOM_EXTRA");  // name=value,name=value via aom_codec_set_option
    if (extra) {
      char buf[512]; strncpy(buf, extra, sizeof buf - 1); buf[sizeof buf - 1] = 0;
      for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *eq = strchr(tok, '='); if (!eq) continue; *eq = 0;
        if (aom_codec_set_option(&enc, tok, eq + 1)) fprintf(stderr, "option %s failed\n", tok);
      }
    }
    aom_image_t *img = aom_img_alloc(NULL, AOM_IMG_FMT_I444, w, h, 32);
    img->range = AOM_CR_FULL_RANGE;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const unsigned char *p = rgb + ((size_t)y * w + x) * 3;
        int r = p[0], g = p[1], b = p[2];
        img->planes[0][y * img->stride[0] + x] = (19595 * r + 38470 * g + 7471 * b + 32768) >> 16;
        img->planes[1][y * img->stride[1] + x] = clamp255((-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32768) >> 16);
        img->planes[2][y * img->stride[2] + x] = clamp255((32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32768) >> 16);
      }
    unsigned char *out = NULL; size_t outsz = 0;
    for (int pass = 0; pass < 2; pass++) {
      if (aom_codec_encode(&enc, pass == 0 ? img : NULL, 0, 1, 0)) { fprintf(stderr, "encode\n"); return 1; }
      const aom_codec_cx_pkt_t *pkt; aom_codec_iter_t it = NULL;
      while ((pkt = aom_codec_get_cx_data(&enc, &it)))
        if (pkt->kind == AOM_CODEC_CX_FRAME_PKT) {
          out = realloc(out, outsz + pkt->data.frame.sz);
          memcpy(out + outsz, pkt->data.frame.buf, pkt->data.frame.sz);
          outsz += pkt->data.frame.sz;
        }
    }
    aom_codec_destroy(&enc);
    double t1 = cpu_ms();
    aom_img_free(img);
    double s = decoded_ssim(out, outsz, ref, w, h);
    if (s < 0) { fprintf(stderr, "decode\n"); return 1; }
    printf("%d %zu %.5f %.1f\n", cq, outsz + 0, s, t1 - t0);
    fflush(stdout);
    free(out);
  }
  return 0;
}
