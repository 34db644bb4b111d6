// One lossy WebP encode of a PPM picture, as the pipeline asks libwebp for one (WebPConfigInit's defaults,
// method 4, at the given quality), linked against whichever libwebp build compare.sh gives it.
//
//   encode PICTURE.ppm QUALITY REPEATS OUT.webp  ->  prints "<bytes> <fastest encode in microseconds>"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "src/webp/encode.h"

static double Microseconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char** argv) {
  int width, height, max, r;
  unsigned char* rgb;
  double fastest = 1e18;
  size_t bytes = 0;
  FILE* in;
  if (argc != 5) return fprintf(stderr, "usage: encode PICTURE.ppm QUALITY REPEATS OUT.webp\n"), 2;
  in = fopen(argv[1], "rb");
  if (in == NULL || fscanf(in, "P6 %d %d %d", &width, &height, &max) != 3 || fgetc(in) == EOF) return 2;
  rgb = malloc((size_t)width * height * 3);
  if (rgb == NULL || fread(rgb, 3, (size_t)width * height, in) != (size_t)width * height) return 3;
  fclose(in);
  for (r = 0; r < atoi(argv[3]); ++r) {
    WebPConfig config;
    WebPPicture picture;
    WebPMemoryWriter writer;
    double started, took;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) return 4;
    config.quality = (float)atof(argv[2]);
    picture.width = width;
    picture.height = height;
    picture.use_argb = 0;
    if (!WebPPictureImportRGB(&picture, rgb, width * 3)) return 4;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    started = Microseconds();
    // The only call callgrind counts (--toggle-collect=WebPEncode).
    if (!WebPEncode(&config, &picture)) return 5;
    took = Microseconds() - started;
    if (took < fastest) fastest = took;
    bytes = writer.size;
    if (r == 0) {
      FILE* out = fopen(argv[4], "wb");
      if (out == NULL || fwrite(writer.mem, 1, writer.size, out) != writer.size) return 6;
      fclose(out);
    }
    WebPMemoryWriterClear(&writer);
    WebPPictureFree(&picture);
  }
  printf("%zu %.0f\n", bytes, fastest);
  free(rgb);
  return 0;
}
