#include <stdio.h>
int main(int argc, char **argv) {
  printf("Hello from %s\n", argc > 1 ? argv[1] : "nobody");
  return 0;
}
