#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <vector>

#include "compute/cuda_check.h"
#include "compute/gpu_kernels.h"
#include "compute/reference.h"

namespace hbcompute {

namespace {

bool Dnn(cudnnStatus_t s, const char* call, std::string* err) {
  if (s == CUDNN_STATUS_SUCCESS) return true;
  *err = std::string(call) + ": " + cudnnGetErrorString(s);
  return false;
}

std::string AlgoName(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
      return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
      return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
      return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
      return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
      return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
      return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
      return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
      return "WINOGRAD_NONFUSED";
    default:
      return "algo " + std::to_string(static_cast<int>(a));
  }
}

// The cuDNN objects and device buffers of one convolution, freed together.
struct ConvSetup {
  cudnnHandle_t h = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  void *dx = nullptr, *dw = nullptr, *dy = nullptr, *ws = nullptr;
  size_t ws_bytes = 0;
  cudnnConvolutionFwdAlgo_t algo{};

  ~ConvSetup() {
    for (void* p : {dx, dw, dy, ws})
      if (p) cudaFree(p);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (x) cudnnDestroyTensorDescriptor(x);
    if (h) cudnnDestroy(h);
  }

  bool Describe(const ConvShape& s, std::string* err) {
    const int n = int(s.n), c = int(s.c), k = int(s.k), P = int(s.p()), Q = int(s.q());
    int on = 0, oc = 0, op = 0, oq = 0;
    bool ok = Dnn(cudnnCreate(&h), "cudnnCreate", err) &&
              Dnn(cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor", err) &&
              Dnn(cudnnCreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor", err) &&
              Dnn(cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor", err) &&
              Dnn(cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor", err) &&
              Dnn(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, int(s.h), int(s.w)),
                  "cudnnSetTensor4dDescriptor", err) &&
              Dnn(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, int(s.r), int(s.s)),
                  "cudnnSetFilter4dDescriptor", err) &&
              Dnn(cudnnSetConvolution2dDescriptor(conv, int(s.pad), int(s.pad), int(s.stride), int(s.stride), 1, 1,
                                                  CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                  "cudnnSetConvolution2dDescriptor", err) &&
              Dnn(cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH), "cudnnSetConvolutionMathType", err) &&
              Dnn(cudnnGetConvolution2dForwardOutputDim(conv, x, w, &on, &oc, &op, &oq),
                  "cudnnGetConvolution2dForwardOutputDim", err) &&
              Dnn(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, P, Q),
                  "cudnnSetTensor4dDescriptor", err);
    if (ok && (on != n || oc != k || op != P || oq != Q)) {
      *err = "cuDNN's output shape differs from " + s.str();
      return false;
    }
    return ok;
  }

  // The fastest algorithm cuDNN measures with FMA math (no TF32), else the
  // fastest of any math type (named in `library`); and its workspace.
  bool ChooseAlgo(std::string* library, std::string* err) {
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int found = 0;
    if (!Dnn(cudnnFindConvolutionForwardAlgorithm(h, x, w, conv, y, 8, &found, perf),
             "cudnnFindConvolutionForwardAlgorithm", err))
      return false;
    const cudnnConvolutionFwdAlgoPerf_t* best = nullptr;
    for (int i = found - 1; i >= 0; --i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
      if (!best || perf[i].mathType == CUDNN_FMA_MATH || best->mathType != CUDNN_FMA_MATH) best = &perf[i];
    }
    if (!best) {
      *err = "cuDNN found no algorithm for this convolution";
      return false;
    }
    algo = best->algo;
    ws_bytes = best->memory;
    *library = "cuDNN " + AlgoName(algo) + ", " +
               (best->mathType == CUDNN_FMA_MATH ? "FMA math"
                                                 : "math type " + std::to_string(best->mathType) + ": may use TF32");
    return Dnn(cudnnSetConvolutionMathType(conv, best->mathType), "cudnnSetConvolutionMathType", err) &&
           (ws_bytes == 0 || Cuda(cudaMalloc(&ws, ws_bytes), "cudaMalloc", err));
  }

  cudnnStatus_t Call() {
    const float alpha = 1, beta = 0;
    return cudnnConvolutionForward(h, &alpha, x, dx, w, dw, conv, algo, ws, ws_bytes, &beta, y, dy);
  }
};

bool Upload(const std::vector<float>& host, void** dev, std::string* err) {
  return Cuda(cudaMalloc(dev, host.size() * sizeof(float)), "cudaMalloc", err) &&
         Cuda(cudaMemcpy(*dev, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy", err);
}

}  // namespace

bool CudnnConv(const ConvShape& s, int iters, int warmup, RunResult* out, std::string* err) {
  std::vector<float> in = RandomData(static_cast<size_t>(s.n * s.c * s.h * s.w), 3);
  std::vector<float> wei = RandomData(static_cast<size_t>(s.k * s.c * s.r * s.s), 4);
  std::vector<float> res(static_cast<size_t>(s.n * s.k * s.p() * s.q()));
  ConvSetup cs;
  if (!cs.Describe(s, err) || !Upload(in, &cs.dx, err) || !Upload(wei, &cs.dw, err) ||
      !Cuda(cudaMalloc(&cs.dy, res.size() * sizeof(float)), "cudaMalloc", err) || !cs.ChooseAlgo(&out->library, err))
    return false;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  bool ok = true;
  for (int i = 0; ok && i < warmup; ++i) ok = Dnn(cs.Call(), "cudnnConvolutionForward", err);
  cudaEventRecord(start);
  for (int i = 0; ok && i < iters; ++i) ok = Dnn(cs.Call(), "cudnnConvolutionForward", err);
  cudaEventRecord(stop);
  float ms = 0;
  ok = ok && Cuda(cudaEventSynchronize(stop), "cudaEventSynchronize", err) &&
       Cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime", err) &&
       Cuda(cudaMemcpy(res.data(), cs.dy, res.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy", err);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!ok) return false;
  out->seconds = ms / 1e3 / iters;
  out->mismatches = CheckConv(s, in, wei, res, Tolerance("fp32"), kCheckedSamples, &out->checked);
  return true;
}

std::string CudnnDescribe() {
  size_t v = cudnnGetVersion();  // major*10000 + minor*100 + patch since cuDNN 9
  return "cuDNN " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

}  // namespace hbcompute
