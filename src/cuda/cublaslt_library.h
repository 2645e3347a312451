// cuBLASLt opened on first use (dlopen), not linked. Linked, its 500 MB library was mapped and relocated at
// every start of perfhound: 210 MB of resident memory for `perfhound --version` and every trace, load or mfu
// command, none of which touches a GPU, and no start at all on a machine without the library.
//
// Include this header instead of <cublasLt.h>: the calls perfhound makes keep their names, each a macro for
// the function looked up in the opened library (once per call site). Call cublaslt_available() before the
// first of them: without the library each would be a null function.
#pragma once

#include <cublasLt.h>

#include "core/result.h"

namespace perfhound::cuda {

// Ok once libcublasLt.so.<major> is open; the error says why it could not be ("dlopen libcublasLt.so.13: ...").
core::Status cublaslt_available();
// The symbol `name` of the opened library, or nullptr (library or symbol missing).
void* cublaslt_symbol(const char* name);

template <class Fn>
Fn cublaslt_function(const char* name) {
  return reinterpret_cast<Fn>(cublaslt_symbol(name));
}

}  // namespace perfhound::cuda

// Inside its own expansion a macro's name is not expanded again, so decltype(&name) is the header's declaration.
#define PH_CUBLASLT_CALL(name)                                                                           \
  ([] {                                                                                                  \
    static const auto ph_function_ = ::perfhound::cuda::cublaslt_function<decltype(&name)>(#name);       \
    return ph_function_;                                                                                 \
  }())
#define cublasLtCreate PH_CUBLASLT_CALL(cublasLtCreate)
#define cublasLtDestroy PH_CUBLASLT_CALL(cublasLtDestroy)
#define cublasLtGetVersion PH_CUBLASLT_CALL(cublasLtGetVersion)
#define cublasLtGetStatusName PH_CUBLASLT_CALL(cublasLtGetStatusName)
#define cublasLtGetStatusString PH_CUBLASLT_CALL(cublasLtGetStatusString)
#define cublasLtMatmul PH_CUBLASLT_CALL(cublasLtMatmul)
#define cublasLtMatmulDescCreate PH_CUBLASLT_CALL(cublasLtMatmulDescCreate)
#define cublasLtMatmulDescDestroy PH_CUBLASLT_CALL(cublasLtMatmulDescDestroy)
#define cublasLtMatmulDescSetAttribute PH_CUBLASLT_CALL(cublasLtMatmulDescSetAttribute)
#define cublasLtMatrixLayoutCreate PH_CUBLASLT_CALL(cublasLtMatrixLayoutCreate)
#define cublasLtMatrixLayoutDestroy PH_CUBLASLT_CALL(cublasLtMatrixLayoutDestroy)
#define cublasLtMatmulPreferenceCreate PH_CUBLASLT_CALL(cublasLtMatmulPreferenceCreate)
#define cublasLtMatmulPreferenceDestroy PH_CUBLASLT_CALL(cublasLtMatmulPreferenceDestroy)
#define cublasLtMatmulPreferenceSetAttribute PH_CUBLASLT_CALL(cublasLtMatmulPreferenceSetAttribute)
#define cublasLtMatmulAlgoGetHeuristic PH_CUBLASLT_CALL(cublasLtMatmulAlgoGetHeuristic)
