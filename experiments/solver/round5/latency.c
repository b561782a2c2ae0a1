#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
int main(int argc,char**argv){
  size_t mb=atol(argv[1]); size_t n=mb<<20; size_t lines=n/64;
  char*p=mmap(0,n+(2<<20),PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  p=(char*)(((uintptr_t)p+(2<<20)-1)&~(uintptr_t)((2<<20)-1));
  madvise(p,n,MADV_HUGEPAGE);
  // random cyclic permutation over lines
  uint32_t*perm=malloc(lines*4); for(size_t i=0;i<lines;i++)perm[i]=i;
  uint64_t s=88172645463325252ull;
  for(size_t i=lines-1;i>0;i--){s^=s<<13;s^=s>>7;s^=s<<17;size_t j=s%(i+1);uint32_t t=perm[i];perm[i]=perm[j];perm[j]=t;}
  for(size_t i=0;i<lines;i++){*(char**)(p+(size_t)perm[i]*64)=p+(size_t)perm[(i+1)%lines]*64;}
  char*q=p+(size_t)perm[0]*64; size_t steps=20000000;
  struct timespec a,b; clock_gettime(CLOCK_MONOTONIC,&a);
  for(size_t i=0;i<steps;i++) q=*(char**)q;
  clock_gettime(CLOCK_MONOTONIC,&b);
  double ns=((b.tv_sec-a.tv_sec)*1e9+(b.tv_nsec-a.tv_nsec))/steps;
  // independent random reads (throughput) with 8 streams
  s=12345; uint64_t sum=0; clock_gettime(CLOCK_MONOTONIC,&a);
  for(size_t i=0;i<steps;i++){s^=s<<13;s^=s>>7;s^=s<<17; sum+=*(volatile uint64_t*)(p+(s%lines)*64);}
  clock_gettime(CLOCK_MONOTONIC,&b);
  double ns2=((b.tv_sec-a.tv_sec)*1e9+(b.tv_nsec-a.tv_nsec))/steps;
  printf("%zu MiB: chase %.1f ns, independent %.1f ns %lu %p\n",mb,ns,ns2,sum&1,(void*)q);
}
