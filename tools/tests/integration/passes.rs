//! The pass registry seen from Rust: documentation, options, anchors, and running a pass without
//! a pass manager.

use melior::ir::{block::BlockLike, operation::OperationLike, Module};
use std::path::Path;
use turbine_dialects::ops::{upstream, OpKind};
use turbine_passes::{
    pipelines::all_pipelines,
    registry::{docs, PassOptions},
};

fn repository_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

#[test]
fn pass_docs_are_up_to_date() {
    let generated = docs::markdown(&turbine_passes::all_passes(), &all_pipelines());
    let path = repository_root().join("docs/Passes.md");
    if std::env::var_os("TURBINE_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/Passes.md is stale; regenerate with TURBINE_BLESS=1 cargo test -p turbine-tools \
         --test integration pass_docs"
    );
}

/// docs/Lowering.md lists the pipelines' passes from their definitions, between two markers; the
/// rest of the page is written by hand.
#[test]
fn pass_docs_of_the_pipelines_in_lowering_md_are_up_to_date() {
    let path = repository_root().join("docs/Lowering.md");
    let committed = std::fs::read_to_string(&path).unwrap();
    let begin = committed
        .find(docs::LOWERING_BEGIN)
        .expect("docs/Lowering.md has the begin marker");
    let end = committed[begin..]
        .find(docs::LOWERING_END)
        .expect("docs/Lowering.md has the end marker")
        + begin
        + docs::LOWERING_END.len();
    let generated = format!(
        "{}{}{}",
        &committed[..begin],
        docs::lowering_section(&all_pipelines()),
        &committed[end..]
    );
    if std::env::var_os("TURBINE_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    assert!(
        committed == generated,
        "docs/Lowering.md is stale; regenerate with TURBINE_BLESS=1 cargo test -p turbine-tools \
         --test integration pass_docs"
    );
}

#[test]
fn every_pass_is_documented() {
    for info in turbine_passes::all_passes() {
        assert!(
            !info.summary.is_empty() && !info.description.is_empty(),
            "{} lacks docs",
            info.argument
        );
        let test = repository_root().join("test");
        let found = walk(&test).iter().any(|file| {
            std::fs::read_to_string(file)
                .is_ok_and(|text| text.contains(&format!("--{}", info.argument)))
        });
        assert!(found, "no lit test under test/ runs --{}", info.argument);
    }
    for info in all_pipelines() {
        assert!(
            !info.summary.is_empty() && !info.description.is_empty(),
            "{} lacks docs",
            info.argument
        );
    }
}

#[test]
fn every_turbine_pass_in_a_pipeline_is_nested_on_its_anchor() {
    for pipeline in all_pipelines() {
        for step in pipeline.steps {
            if let Some(pass) = turbine_passes::all_passes()
                .into_iter()
                .find(|info| info.argument == step.pass)
            {
                assert_eq!(
                    step.nest
                        .unwrap_or(OpKind::Upstream(upstream::Kind::BuiltinModule)),
                    pass.anchor,
                    "{} in {}",
                    step.pass,
                    pipeline.argument
                );
            }
        }
    }
}

fn walk(directory: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(directory).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn options_parse_with_their_declared_types() {
    let info = turbine_passes::all_passes()
        .into_iter()
        .find(|info| info.argument == "graph-fold-reshapes")
        .unwrap();
    let mut options = PassOptions::defaults(info.options);
    assert_eq!(options.bool("include-flatten"), Ok(true));
    options.set("include-flatten", "false").unwrap();
    assert_eq!(options.bool("include-flatten"), Ok(false));
    options.set("include-flatten", "perhaps").unwrap();
    insta::assert_snapshot!(
        options.bool("include-flatten").unwrap_err(),
        @"option 'include-flatten' expects true or false, got 'perhaps'"
    );
    insta::assert_snapshot!(
        options.set("no-such-option", "1").unwrap_err(),
        @"unknown option 'no-such-option'"
    );
}

#[test]
fn fold_reshapes_runs_from_rust() {
    let context = turbine_dialects::create_context();
    let module = Module::parse(
        &context,
        r#"
        func.func @f(%x: tensor<2x3x4xf32>) -> tensor<8x3xf32> {
          %a = graph.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
          %b = graph.flatten %a {axis = 0 : i64} : tensor<24xf32> -> tensor<1x24xf32>
          %c = graph.reshape %b : tensor<1x24xf32> -> tensor<8x3xf32>
          return %c : tensor<8x3xf32>
        }
        "#,
    )
    .expect("the module parses");
    let info = turbine_passes::all_passes()
        .into_iter()
        .find(|info| info.argument == "graph-fold-reshapes")
        .unwrap();
    // The pass runs on functions; like the pass manager, running it on the module is refused.
    let errors = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = errors.clone();
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        sink.borrow_mut().push(diagnostic.to_string());
        true
    });
    assert!(info
        .run(&PassOptions::defaults(info.options), module.as_operation())
        .is_err());
    context.detach_diagnostic_handler(handler);
    insta::assert_snapshot!(
        errors.borrow().join("\n"),
        @"can't run 'graph-fold-reshapes' pass on 'builtin.module' op (it runs on 'func.func')"
    );
    let function = module.body().first_operation().unwrap();
    info.run(&PassOptions::defaults(info.options), function)
        .unwrap();
    assert!(module.as_operation().verify());
    insta::assert_snapshot!(module.as_operation().to_string(), @r"
    module {
      func.func @f(%arg0: tensor<2x3x4xf32>) -> tensor<8x3xf32> {
        %0 = graph.reshape %arg0 : tensor<2x3x4xf32> -> tensor<8x3xf32>
        return %0 : tensor<8x3xf32>
      }
    }
    ");
}
