//! The program generator: every generated program type-checks, every function runs in the
//! reference interpreter without an internal error, and the programs cover what the
//! differential tests need (each dtype, `?` dims, failing run-time checks, contradicting sizes).
//! Needs neither MLIR nor IREE, so it runs in seconds.

use std::collections::BTreeMap;

use ptl_lang::{DType, Value};
use ptl_testkit::progen::{self, DeclDim, GeneratedArg, GeneratedFn};

/// The argument as a value, built by the language itself from its literal.
fn value(arg: &GeneratedArg) -> Value {
    let src = format!("print {};\n", arg.literal());
    let prog = ptl_lang::frontend(&src).unwrap_or_else(|d| panic!("argument literal does not check:\n{src}{d:?}"));
    let v = ptl_interp::run_program(&prog).unwrap_or_else(|e| panic!("{src}: {e}")).remove(0);
    assert_eq!((v.dtype(), v.shape()), (arg.dtype, &arg.shape[..]), "{src}");
    v
}

/// The error's variant name, from its `Debug` form (stable across changes to the fields).
fn variant(e: &ptl_interp::InterpError) -> String {
    format!("{e:?}").split(|c: char| !c.is_alphanumeric()).next().unwrap_or_default().to_string()
}

fn describe(f: &GeneratedFn) -> String {
    let args: Vec<String> = f.args.iter().map(|a| format!("{:?}", a.shape)).collect();
    format!("{}sizes {:?}, argument shapes {}, {:?}", f.source, f.sizes, args.join(" "), f.inconsistent)
}

#[test]
fn generated_functions_check_and_run_in_the_interpreter() {
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let mut result_dtypes: BTreeMap<DType, usize> = BTreeMap::new();
    let (mut total, mut unknown_dims, mut contradicted, mut failed_reductions) = (0, 0, 0, 0);
    for seed in 0..40 {
        let batch = progen::random_batch(seed, 3, 32);
        let prog = ptl_lang::frontend(&batch.source)
            .unwrap_or_else(|d| panic!("generated program does not check:\n{}\n{d:?}", batch.source));
        for f in &batch.fns {
            total += 1;
            *result_dtypes.entry(prog.function(&f.name).unwrap().results[0].dtype).or_default() += 1;
            unknown_dims += f.params.iter().any(|p| p.dims.contains(&DeclDim::Unknown)) as usize;
            contradicted += f.inconsistent.is_some() as usize;
            let args: Vec<Value> = f.args.iter().map(value).collect();
            let outcome = match ptl_interp::call_function(&prog, &f.name, &args) {
                Ok(_) => "ok".to_string(),
                Err(e) => {
                    let v = variant(&e);
                    assert!(v != "Internal", "interpreter internal error: {e}\n{}", describe(f));
                    if f.inconsistent.is_none() && (f.source.contains("max(") || f.source.contains("min(")) {
                        failed_reductions += 1;
                    }
                    v
                }
            };
            *outcomes.entry(outcome).or_default() += 1;
        }
    }
    eprintln!("{total} functions: {outcomes:?}; result dtypes {result_dtypes:?}; {unknown_dims} with `?` dims, {contradicted} with contradicting sizes");
    let ok = outcomes.get("ok").copied().unwrap_or(0);
    assert!(ok * 2 > total, "most functions should run: {outcomes:?}");
    assert!(ok < total, "some functions should fail a run-time check: {outcomes:?}");
    assert_eq!(result_dtypes.len(), DType::ALL.len(), "every dtype as a result: {result_dtypes:?}");
    assert!(unknown_dims * 2 > total, "`?` dims in most functions: {unknown_dims} of {total}");
    assert!(contradicted * 10 > total, "contradicting sizes in some functions: {contradicted} of {total}");
    assert!(failed_reductions > 0, "some functions fail without contradicting sizes (empty max/min)");
}

#[test]
fn generation_is_deterministic_in_the_seed() {
    let (a, b) = (progen::random_batch(7, 3, 8), progen::random_batch(7, 3, 8));
    assert_eq!(a.source, b.source);
    for (f, g) in a.fns.iter().zip(&b.fns) {
        assert_eq!(f.args, g.args);
        // Each function is reproducible from its own seed.
        assert_eq!(progen::random_function(f.seed, &f.name, 3).source, f.source);
    }
    assert_ne!(a.source, progen::random_batch(8, 3, 8).source);
}

/// The fuzz target's use: one function per seed, at every depth it asks for.
#[test]
fn single_programs_check_at_every_depth() {
    for seed in 0..100 {
        for depth in 0..6 {
            let g = progen::random_program(seed, depth);
            let prog = ptl_lang::frontend(&g.source)
                .unwrap_or_else(|d| panic!("generated program does not check:\n{}\n{d:?}", g.source));
            assert!(prog.function(progen::FUNCTION).is_some());
        }
    }
}

#[test]
fn the_hub_calls_every_function_and_checks() {
    let batch = progen::random_batch(3, 3, 32);
    let prog = ptl_lang::frontend(&batch.source).expect("checks");
    let sig: Vec<_> = batch
        .fns
        .iter()
        .map(|f| {
            let t = &prog.function(&f.name).unwrap().results[0];
            (f, t.dtype, t.dims.len())
        })
        .collect();
    let src = format!("{}\n{}", batch.source, progen::hub(&sig));
    let prog = ptl_lang::frontend(&src).unwrap_or_else(|d| panic!("hub does not check:\n{src}\n{d:?}"));
    let hub = prog.function(progen::HUB).unwrap();
    assert_eq!(hub.results.len(), 32);
    assert_eq!(hub.params.len(), batch.fns.iter().map(|f| f.params.len()).sum::<usize>());
}

#[test]
fn generated_programs_cover_the_op_families() {
    let mut text = String::new();
    for seed in 0..160 {
        text.push_str(&progen::random_batch(seed, 3, 32).source);
    }
    let ops = [
        "tril(", "triu(", "outer(", "trace(", "zeros(", "ones(", "full(", "digamma(", "erfinv(", "gammaln(", "concat(", "stack(", "cumsum(",
        "cumprod(", "scatter_add(", "loop ", "softmax(", "@", "var(", "std(", "split(", "sort(",
        "argsort(",
    ];
    let missing: Vec<&str> = ops.iter().copied().filter(|op| !text.contains(op)).collect();
    assert!(missing.is_empty(), "no generated program uses {missing:?}");
}
