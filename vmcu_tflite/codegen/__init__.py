"""C code generation: `project.py` writes the CMake project, `model_c.py` the model's tables,
`kernel_functions.py` the kernels lowered from the kernel language, `params/` each step's params
struct. Nothing is imported here, so op specs can name their emitters without import cycles."""
