#include <dnnl.hpp>

#include <cstring>
#include <vector>

#include "common/bench_util.h"
#include "compute/cpu_kernels.h"
#include "compute/reference.h"

namespace hbcompute {

namespace {

using dnnl::memory;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

constexpr uint64_t kSamples = 512;

// `user` in the layout the primitive wants (`want`), reordered if needed.
memory InLayout(memory& user, const memory::desc& want, dnnl::engine& eng, dnnl::stream& strm) {
  if (user.get_desc() == want) return user;
  memory m(want, eng);
  dnnl::reorder(user, m).execute(strm, user, m);
  return m;
}

bool Run(const ConvShape& s, int iters, int warmup, RunResult* out) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  memory::dims src_dims = {s.n, s.c, s.h, s.w}, wei_dims = {s.k, s.c, s.r, s.s}, dst_dims = {s.n, s.k, s.p(), s.q()};
  std::vector<float> src = RandomData(static_cast<size_t>(s.n * s.c * s.h * s.w), 3);
  std::vector<float> wei = RandomData(static_cast<size_t>(s.k * s.c * s.r * s.s), 4);
  std::vector<float> dst(static_cast<size_t>(s.n * s.k * s.p() * s.q()));

  memory user_src({src_dims, dt::f32, tag::nchw}, eng, src.data());
  memory user_wei({wei_dims, dt::f32, tag::oihw}, eng, wei.data());
  memory user_dst({dst_dims, dt::f32, tag::nchw}, eng, dst.data());

  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      memory::desc(src_dims, dt::f32, tag::any), memory::desc(wei_dims, dt::f32, tag::any),
      memory::desc(dst_dims, dt::f32, tag::any), {s.stride, s.stride}, {s.pad, s.pad}, {s.pad, s.pad});
  dnnl::convolution_forward::primitive_desc pd(desc, eng);
  memory conv_src = InLayout(user_src, pd.src_desc(), eng, strm);
  memory conv_wei = InLayout(user_wei, pd.weights_desc(), eng, strm);
  memory conv_dst = pd.dst_desc() == user_dst.get_desc() ? user_dst : memory(pd.dst_desc(), eng);
  dnnl::convolution_forward conv(pd);
  auto call = [&] {
    conv.execute(strm, {{DNNL_ARG_SRC, conv_src}, {DNNL_ARG_WEIGHTS, conv_wei}, {DNNL_ARG_DST, conv_dst}});
  };
  for (int i = 0; i < warmup; ++i) call();
  strm.wait();
  double t0 = hbw::Now();
  for (int i = 0; i < iters; ++i) call();
  strm.wait();
  out->seconds = (hbw::Now() - t0) / iters;
  out->library = std::string("oneDNN convolution ") + pd.impl_info_str();

  if (conv_dst != user_dst) dnnl::reorder(conv_dst, user_dst).execute(strm, conv_dst, user_dst);
  strm.wait();
  out->mismatches = CheckConv(s, src, wei, dst, Tolerance("fp32"), kSamples, &out->checked);
  return true;
}

// bf16 A (MxK) and B (KxN), fp32 C, all row-major; a small GEMM checked in
// full, then the timed one by samples.
bool Matmul(const GemmShape& s, int iters, int warmup, uint64_t samples, RunResult* out) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  std::vector<float> a = RoundTo("bf16", RandomData(static_cast<size_t>(s.m * s.k), 1));
  std::vector<float> b = RoundTo("bf16", RandomData(static_cast<size_t>(s.k * s.n), 2));
  std::vector<float> c(static_cast<size_t>(s.m * s.n));
  std::vector<uint16_t> a16, b16;
  for (float x : a) a16.push_back(FloatToBf16(x));
  for (float x : b) b16.push_back(FloatToBf16(x));
  memory ma({{s.m, s.k}, dt::bf16, tag::ab}, eng, a16.data());
  memory mb({{s.k, s.n}, dt::bf16, tag::ab}, eng, b16.data());
  memory mc({{s.m, s.n}, dt::f32, tag::ab}, eng, c.data());
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ma.get_desc(), mb.get_desc(), mc.get_desc()), eng);
  dnnl::matmul mm(pd);
  auto call = [&] { mm.execute(strm, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}}); };
  for (int i = 0; i < warmup; ++i) call();
  strm.wait();
  double t0 = hbw::Now();
  for (int i = 0; i < iters; ++i) call();
  strm.wait();
  out->seconds = (hbw::Now() - t0) / iters;
  out->library = std::string("oneDNN matmul ") + pd.impl_info_str();
  uint64_t checked = 0;
  out->mismatches += CheckGemm(s, a, b, c, Tolerance("bf16"), samples, &checked);
  out->checked += checked;
  return true;
}

}  // namespace

bool OnednnMatmulBf16(const GemmShape& shape, int iters, int warmup, RunResult* out, std::string* err) {
  try {
    RunResult small;
    Matmul(GemmShape{67, 45, 93}, 1, 0, 0, &small);
    Matmul(shape, iters, warmup, kSamples, out);
    out->checked += small.checked;
    out->mismatches += small.mismatches;
    return true;
  } catch (const dnnl::error& e) {
    *err = "oneDNN bf16 matmul " + shape.str() + ": " + e.what();
    return false;
  }
}

bool OnednnConv(const ConvShape& shape, int iters, int warmup, RunResult* out, std::string* err) {
  try {
    return Run(shape, iters, warmup, out);
  } catch (const dnnl::error& e) {
    *err = std::string("oneDNN convolution ") + shape.str() + ": " + e.what();
    return false;
  }
}

std::string OnednnDescribe() {
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

}  // namespace hbcompute
