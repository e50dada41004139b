{
  "variables": {
    "cookbook_blas%": "<!(node scripts/detect-blas.mjs)"
  },
  "targets": [
    {
      "target_name": "cookbook_engine",
      "sources": ["native/engine.cc", "native/gemm.cc", "native/ops.cc", "native/attention.cc"],
      "cflags_cc": ["-O3", "-std=c++17", "-fno-exceptions"],
      "cflags_cc!": ["-fno-rtti"],
      "xcode_settings": {
        "OTHER_CPLUSPLUSFLAGS": ["-O3", "-std=c++17"],
        "MACOSX_DEPLOYMENT_TARGET": "11.0"
      },
      "conditions": [
        ["cookbook_blas=='openblas'", {
          "defines": ["COOKBOOK_OPENBLAS=1"],
          "libraries": ["-lopenblas"]
        }],
        ["cookbook_blas=='accelerate'", {
          "defines": ["COOKBOOK_ACCELERATE=1", "ACCELERATE_NEW_LAPACK=1"],
          "libraries": ["-framework Accelerate"]
        }],
        ["OS=='linux'", {
          "libraries": ["-lpthread"]
        }]
      ]
    },
    {
      "target_name": "cookbook_engine_own",
      "sources": ["native/engine.cc", "native/gemm.cc", "native/ops.cc", "native/attention.cc"],
      "cflags_cc": ["-O3", "-std=c++17", "-fno-exceptions"],
      "xcode_settings": {
        "OTHER_CPLUSPLUSFLAGS": ["-O3", "-std=c++17"],
        "MACOSX_DEPLOYMENT_TARGET": "11.0"
      },
      "conditions": [
        ["OS=='linux'", {
          "libraries": ["-lpthread"]
        }]
      ]
    }
  ]
}
