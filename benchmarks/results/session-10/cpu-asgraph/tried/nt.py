from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def store_nt(typingctx, array, index, value):
    """array[index] = value as a non-temporal store (index unsigned, not checked)."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, arguments):
        array_type, _, value_type = signature.args
        view = context.make_array(array_type)(context, builder, arguments[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [arguments[1]], wraparound=False)
        value = context.cast(builder, arguments[2], value_type, array_type.dtype)
        store = builder.store(value, pointer)
        store.set_metadata("nontemporal", builder.module.add_metadata([ir.IntType(32)(1)]))
        return context.get_dummy_value()

    return types.void(array, index, value), codegen


@intrinsic
def store_fence(typingctx):
    """sfence: non-temporal stores made visible before what follows."""
    def codegen(context, builder, signature, arguments):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse.sfence")
        builder.call(fn, [])
        return context.get_dummy_value()

    return types.void(), codegen


@intrinsic
def prefetch_nta(typingctx, array, index):
    """llvm.prefetch with locality 0 (prefetchnta): array[index] requested for one use."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, arguments):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, arguments[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [arguments[1]], wraparound=False)
        bytes_ = ir.IntType(8).as_pointer()
        fetch = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
            ir.VoidType(), [bytes_, ir.IntType(32), ir.IntType(32), ir.IntType(32)]), "llvm.prefetch.p0")
        int32 = ir.IntType(32)
        builder.call(fetch, [builder.bitcast(pointer, bytes_), int32(0), int32(0), int32(1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen
